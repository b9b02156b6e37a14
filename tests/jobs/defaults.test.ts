import { describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { releaseJobsOf } from "../helpers/release-jobs";

/** The protocol's defaults (docs/contract.md#the-runtime-protocol) and the capability filter, as a Runtime sees them. */
describe("protocol defaults", () => {
  it("a new job: timeoutSeconds 120, maxRetryCount 3; a lock: a 60 s lease; the first heartbeat sets startedAt", async () => {
    const l = await createLearner();
    const job = await createTestJob(l, "learning_state_analysis");
    const rt = runtime(await runtimeKey(), uid("rt"));
    const locked = await rt.lock(job.id);
    expect(locked.status).toBe(200);
    expect([locked.body.job.timeoutSeconds, locked.body.job.maxRetryCount, locked.body.job.retryCount]).toEqual([
      120, 3, 0,
    ]);
    const row = await jobRow(job.id);
    expect([row.timeoutSeconds, row.maxRetryCount]).toEqual([120, 3]);
    expect(row.lockUntil!.getTime() - row.lockedAt!.getTime()).toBe(60_000);
    expect(row.startedAt).toBeNull(); // locked, not yet running
    const hb = await rt.heartbeat(job.id, 1, { stage: "prompt_builder", progress: 5 });
    expect(hb.status).toBe(200);
    const running = await jobRow(job.id);
    expect(running.status).toBe("running");
    expect(running.startedAt).not.toBeNull();
    expect(running.startedAt!.getTime()).toBeGreaterThanOrEqual(row.lockedAt!.getTime());
    // A later heartbeat keeps the first startedAt.
    expect((await rt.heartbeat(job.id, 1, { progress: 30 })).status).toBe(200);
    expect((await jobRow(job.id)).startedAt).toEqual(running.startedAt);
    await releaseJobsOf([l]);
  });

  it("poll and claim return only the Runtime's capabilities", async () => {
    const l = await createLearner();
    const quiz = await createTestJob(l, "quiz_generation", { params: { count: 3 } });
    const plan = await createTestJob(l, "next_action_planning");
    const rt = runtime(await runtimeKey(), uid("rt"));
    const polled = await rt.poll({ capabilities: ["next_action_planning"], limit: 50 });
    const polledIds = polled.body.jobs.map((j: { id: string }) => j.id);
    expect(polledIds).toContain(plan.id);
    expect(polledIds).not.toContain(quiz.id);
    expect(polled.body.jobs.every((j: { jobType: string }) => j.jobType === "next_action_planning")).toBe(true);
    const claimed = await rt.poll({ capabilities: ["quiz_generation"], limit: 50, claim: true });
    expect(claimed.body.jobs.map((j: { job: { id: string } }) => j.job.id)).toEqual([quiz.id]);
    expect((await jobRow(plan.id)).status).toBe("pending");
    await releaseJobsOf([l]);
  });
});
