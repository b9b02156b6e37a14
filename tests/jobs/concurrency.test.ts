import { describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { getDb } from "@/server/db";
import { createJob } from "@/server/jobs/create";

describe("racing Runtimes and creators", () => {
  it("20 concurrent locks on one job: exactly one 200, nineteen JOB_ALREADY_LOCKED", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    const key = await runtimeKey();
    const runtimes = Array.from({ length: 20 }, (_, i) => runtime(key, uid(`rt${i}`)));
    const answers = await Promise.all(runtimes.map((rt) => rt.lock(job.id)));
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    const losers = answers.filter((a) => a.status !== 200);
    expect(losers.map((a) => [a.status, a.body.error.code])).toEqual(Array(19).fill([409, "JOB_ALREADY_LOCKED"]));
    const row = await jobRow(job.id);
    expect(row.attemptNo).toBe(1);
    expect(row.lockedBy).toBe(runtimes[answers.indexOf(winners[0]!)]!.id);
    expect(row.events.filter((e) => e.toStatus === "locked")).toHaveLength(1);
  });

  it("8 concurrent claimers over 500 jobs: each job claimed exactly once", async () => {
    const learner = await createLearner();
    const db = getDb();
    const base = await createTestJob(learner, "flashcard_generation");
    // 499 more rows like it (direct inserts keep the setup fast; claiming is what is under test).
    await db.$executeRaw`
      INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey", params, "runAfter", "createdAt", "updatedAt")
      SELECT 'race_' || g || '_' || ${base.id}, "userId", "jobType", "targetType", "targetId", "snapshotId", 'pending', "inputHash", 'race-' || g, params, "runAfter", "createdAt", "updatedAt"
      FROM "AiRuntimeJob", generate_series(1, 499) g WHERE id = ${base.id}`;
    const ours = new Set([base.id, ...Array.from({ length: 499 }, (_, i) => `race_${i + 1}_${base.id}`)]);
    const key = await runtimeKey();
    const claimed: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const rt = runtime(key, uid(`claimer${i}`));
        for (;;) {
          const res = await rt.poll({ claim: true, limit: 7, capabilities: ["flashcard_generation"] });
          expect(res.status).toBe(200);
          if (res.body.jobs.length === 0) return;
          for (const j of res.body.jobs) claimed.push(j.job.id);
        }
      }),
    );
    const mine = claimed.filter((id) => ours.has(id));
    expect(mine).toHaveLength(500);
    expect(new Set(claimed).size).toBe(claimed.length);
    const stillPending = await db.aiRuntimeJob.count({ where: { id: { in: [...ours] }, status: "pending" } });
    expect(stillPending).toBe(0);
    const lockEvents = await db.jobEvent.count({ where: { jobId: { in: [...ours] }, toStatus: "locked" } });
    expect(lockEvents).toBe(500);
  });

  it("20 concurrent creations with one idempotency key make one job", async () => {
    const learner = await createLearner();
    const input = {
      userId: learner.user.id,
      jobType: "learning_state_analysis" as const,
      target: { type: "user" as const, id: learner.user.id },
      idempotencyKey: "same-key",
      actor: { type: "learner" as const, id: learner.user.id },
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => createJob(input)));
    expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await getDb().aiRuntimeJob.count({ where: { userId: learner.user.id } })).toBe(1);
  });

  it("20 concurrent identical keyless creations share the one in-flight job", async () => {
    const learner = await createLearner();
    const input = {
      userId: learner.user.id,
      jobType: "quiz_generation" as const,
      target: { type: "material" as const, id: learner.material.id },
      params: { count: 3 },
      actor: { type: "learner" as const, id: learner.user.id },
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => createJob(input)));
    expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await getDb().jobEvent.count({ where: { jobId: results[0]!.job.id } })).toBe(1);
  });
});
