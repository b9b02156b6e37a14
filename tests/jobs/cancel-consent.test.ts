import { describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { cancelJob } from "@/server/jobs/cancel";
import { setConsent } from "@/server/jobs/consent";
import { createJob } from "@/server/jobs/create";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";

describe("cancellation", () => {
  it("cancels a pending job at once; it never reaches a Runtime", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    const out = await cancelJob(job.id, { type: "learner", id: learner.user.id }, { ownerId: learner.user.id });
    expect(out).toEqual({ status: "cancelled", cancelRequested: false });
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(job.id)).body.error.code).toBe("JOB_NOT_LOCKABLE");
    const row = await jobRow(job.id);
    expect(row.events.at(-1)).toMatchObject({
      fromStatus: "pending",
      toStatus: "cancelled",
      actorType: "learner",
      actorId: learner.user.id,
    });
  });

  it("a running job learns cancelRequested on its next heartbeat and ends cancelled when it acknowledges", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.lock(job.id);
    expect((await rt.heartbeat(job.id, 1)).body.cancelRequested).toBe(false);
    expect(await cancelJob(job.id, { type: "admin", id: "a1" })).toEqual({ status: "running", cancelRequested: true });
    expect((await rt.heartbeat(job.id, 1, { progress: 30 })).body.cancelRequested).toBe(true);
    const ack = await rt.fail(job.id, 1, "CANCELLED", "stopped on request");
    expect(ack.body).toMatchObject({ status: "cancelled" });
    const row = await jobRow(job.id);
    expect(row.status).toBe("cancelled");
    expect(row.finishedAt).not.toBeNull();
    expect(row.lockedBy).toBeNull();
  });

  it("a result for a cancel-requested job is not stored: 409 JOB_CANCELLED, job cancelled", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.lock(job.id);
    await cancelJob(job.id, { type: "admin", id: "a1" });
    const res = await rt.result(
      job.id,
      1,
      validOutput(
        "weak_point_analysis",
        learner.knowledgePoints.map((k) => k.id),
      ),
    );
    expect([res.status, res.body.error.code]).toEqual([409, "JOB_CANCELLED"]);
    const row = await jobRow(job.id);
    expect(row.status).toBe("cancelled");
    expect(row.result).toBeNull();
  });

  it("a retryable failure of a cancel-requested job ends it cancelled, not retried", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.lock(job.id);
    await cancelJob(job.id, { type: "admin", id: "a1" });
    const res = await rt.fail(job.id, 1, "NETWORK_ERROR");
    expect([res.status, res.body.error.code]).toEqual([409, "JOB_CANCELLED"]);
    const row = await jobRow(job.id);
    expect(row.status).toBe("cancelled");
    expect(row.retryCount).toBe(0);
  });

  it("a learner cannot cancel another learner's job (reported as not found)", async () => {
    const a = await createLearner();
    const b = await createLearner();
    const job = await createTestJob(a);
    await expect(cancelJob(job.id, { type: "learner", id: b.user.id }, { ownerId: b.user.id })).rejects.toMatchObject({
      code: "JOB_NOT_FOUND",
    });
    expect((await jobRow(job.id)).status).toBe("pending");
  });
});

describe("consent", () => {
  it("revoking cancels pending work, asks running work to stop, and refuses new jobs until granted again", async () => {
    const learner = await createLearner();
    const other = await createLearner();
    const pending = await createTestJob(learner, "quiz_generation");
    const running = await createTestJob(learner, "flashcard_generation");
    const othersJob = await createTestJob(other);
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.lock(running.id);
    await rt.heartbeat(running.id, 1);

    const out = await setConsent(learner.user.id, false, { type: "learner", id: learner.user.id });
    expect(out).toEqual({ granted: false, cancelled: 1, cancelRequested: 1 });
    expect((await jobRow(pending.id)).status).toBe("cancelled");
    const runningRow = await jobRow(running.id);
    expect(runningRow.status).toBe("running");
    expect(runningRow.cancelRequested).toBe(true);
    expect((await rt.heartbeat(running.id, 1)).body.cancelRequested).toBe(true);
    expect((await jobRow(othersJob.id)).status).toBe("pending");

    const refused = createTestJob(learner);
    await expect(refused).rejects.toBeInstanceOf(AppError);
    await expect(refused).rejects.toMatchObject({ code: "CONSENT_REQUIRED" });
    await setConsent(learner.user.id, true, { type: "learner", id: learner.user.id });
    expect((await createTestJob(learner)).status).toBe("pending");
  });

  it("a revoke racing 30 creations leaves no pending job behind", async () => {
    const learner = await createLearner();
    const creations = Array.from({ length: 30 }, () => createTestJob(learner).catch((e) => e));
    const revoke = setConsent(learner.user.id, false, { type: "learner", id: learner.user.id });
    const outcomes = await Promise.all([...creations, revoke]);
    const refused = outcomes.slice(0, 30).filter((o) => o instanceof AppError);
    for (const e of refused) expect(e.code).toBe("CONSENT_REQUIRED");
    expect(await getDb().aiRuntimeJob.count({ where: { userId: learner.user.id, status: "pending" } })).toBe(0);
  });
});

describe("creation", () => {
  it("refuses user_deepseek_key without a stored key, and unknown targets, without writing anything", async () => {
    const learner = await createLearner();
    const base = {
      userId: learner.user.id,
      jobType: "learning_state_analysis" as const,
      actor: { type: "learner" as const, id: learner.user.id },
    };
    await expect(
      createJob({ ...base, target: { type: "user", id: learner.user.id }, apiKeyMode: "user_deepseek_key" }),
    ).rejects.toMatchObject({
      code: "CREDENTIAL_REQUIRED",
    });
    const stranger = await createLearner();
    await expect(createJob({ ...base, target: { type: "material", id: stranger.material.id } })).rejects.toMatchObject({
      code: "TARGET_NOT_FOUND",
    });
    await expect(createJob({ ...base, target: { type: "user", id: stranger.user.id } })).rejects.toMatchObject({
      code: "TARGET_NOT_FOUND",
    });
    await expect(
      createJob({
        ...base,
        jobType: "quiz_generation",
        target: { type: "user", id: learner.user.id },
        params: { count: 99 },
      }),
    ).rejects.toMatchObject({
      code: "INVALID_PARAMS",
    });
    expect(await getDb().aiRuntimeJob.count({ where: { userId: learner.user.id } })).toBe(0);
  });

  it("without a key, an identical request returns the in-flight job; once finished the same input runs again", async () => {
    const learner = await createLearner();
    const input = {
      userId: learner.user.id,
      jobType: "quiz_generation" as const,
      target: { type: "knowledge_point" as const, id: learner.knowledgePoints[0]!.id },
      params: { count: 2, difficulty: "easy" },
      actor: { type: "learner" as const, id: learner.user.id },
    };
    const first = await createJob(input);
    const again = await createJob(input);
    expect(again).toMatchObject({ created: false, job: { id: first.job.id } });
    const differentParams = await createJob({ ...input, params: { count: 3, difficulty: "easy" } });
    expect(differentParams.created).toBe(true);
    await cancelJob(first.job.id, { type: "learner", id: learner.user.id });
    const afterFinish = await createJob(input);
    expect(afterFinish.created).toBe(true);
    expect(afterFinish.job.id).not.toBe(first.job.id);
    expect(afterFinish.job.snapshotId).toBe(first.job.snapshotId); // unchanged data shares the snapshot
  });

  it("new learning data makes a new snapshot, so the same request is a new job", async () => {
    const learner = await createLearner();
    const input = {
      userId: learner.user.id,
      jobType: "learning_state_analysis" as const,
      target: { type: "user" as const, id: learner.user.id },
      actor: { type: "learner" as const, id: learner.user.id },
    };
    const first = await createJob(input);
    await getDb().quizAttempt.create({
      data: {
        userId: learner.user.id,
        knowledgePointId: learner.knowledgePoints[1]!.id,
        question: "new",
        correct: true,
      },
    });
    const second = await createJob(input);
    expect(second.created).toBe(true);
    expect(second.job.snapshotId).not.toBe(first.job.snapshotId);
    const snap = await getDb().snapshot.findUniqueOrThrow({ where: { id: second.job.snapshotId! } });
    expect((snap.content as { quizAttempts: unknown[] }).quizAttempts).toHaveLength(10);
  });
});
