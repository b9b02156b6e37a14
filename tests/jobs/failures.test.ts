import { afterEach, describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { fingerprint } from "../helpers/states";
import { runtime } from "../helpers/runtime-api";
import { advanceClock, now, resetClock } from "@/server/clock";
import { FAILURE_CODES } from "@/server/jobs/constants";

describe("failures, retry classes and backoff", () => {
  afterEach(() => resetClock());

  for (const [code, { retryable }] of Object.entries(FAILURE_CODES)) {
    if (code === "CANCELLED") continue;
    it(`${code} is ${retryable ? "retried" : "final"}`, async () => {
      const learner = await createLearner();
      const job = await createTestJob(learner);
      const rt = runtime(await runtimeKey(), uid("rt"));
      await rt.lock(job.id);
      const res = await rt.fail(job.id, 1, code, `it broke: ${code}`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(retryable ? "pending" : "failed");
      expect(res.body.retryCount).toBe(retryable ? 1 : 0);
      const row = await jobRow(job.id);
      expect(row.errorCode).toBe(code);
      expect(row.errorMessage).toBe(`it broke: ${code}`);
      expect(row.lockedBy).toBeNull();
      expect(row.events.at(-1)).toMatchObject({ toStatus: res.body.status, errorCode: code, attemptNo: 1 });
      if (!retryable) expect(row.finishedAt).not.toBeNull();
    });
  }

  it("backoff grows exponentially with jitter, is respected by poll, claim and lock, and ends in failed", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "learning_state_analysis", { maxRetryCount: 3 });
    const rt = runtime(await runtimeKey(), uid("rt"));
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const locked = await rt.lock(job.id);
      expect(locked.status).toBe(200);
      const failedAt = now().getTime();
      const res = await rt.fail(job.id, attempt, "MODEL_RATE_LIMIT");
      if (attempt === 4) {
        expect(res.body).toMatchObject({ status: "failed", retryCount: 3, runAfter: null });
        break;
      }
      expect(res.body.status).toBe("pending");
      const wait = new Date(res.body.runAfter).getTime() - failedAt;
      waits.push(wait);
      // Base 5 s doubling per retry, equal jitter: between half and all of 5·2^(n-1) s.
      const full = 5000 * 2 ** (attempt - 1);
      expect(wait).toBeGreaterThanOrEqual(full / 2 - 1000);
      expect(wait).toBeLessThanOrEqual(full + 1000);

      const before = await fingerprint(job.id);
      const polled = await rt.poll({ limit: 50 });
      expect(polled.body.jobs.map((j: { id: string }) => j.id)).not.toContain(job.id);
      const claimer = runtime(await runtimeKey(), uid("claimer"));
      const claimed = await claimer.poll({ claim: true, limit: 50, capabilities: ["learning_state_analysis"] });
      expect(claimed.body.jobs.map((j: { job: { id: string } }) => j.job.id)).not.toContain(job.id);
      const lock = await rt.lock(job.id);
      expect([lock.status, lock.body.error.code]).toEqual([409, "JOB_NOT_LOCKABLE"]);
      expect(lock.body.error.message).toMatch(/waits to retry/);
      expect(await fingerprint(job.id)).toEqual(before);

      advanceClock(wait + 1000);
      const visible = await rt.poll({ limit: 50 });
      expect(visible.body.jobs.map((j: { id: string }) => j.id)).toContain(job.id);
    }
    const row = await jobRow(job.id);
    expect(row.status).toBe("failed");
    expect(row.errorCode).toBe("MODEL_RATE_LIMIT");
    expect(row.events.filter((e) => e.toStatus === "pending" && e.fromStatus === "locked")).toHaveLength(3);
  });

  it("an unknown error code is 400 UNKNOWN_ERROR_CODE and changes nothing", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.lock(job.id);
    const before = await fingerprint(job.id);
    const res = await rt.fail(job.id, 1, "SOMETHING_ELSE");
    expect([res.status, res.body.error.code]).toEqual([400, "UNKNOWN_ERROR_CODE"]);
    expect(res.body.error.details.allowed).toContain("MODEL_TIMEOUT");
    expect(await fingerprint(job.id)).toEqual(before);
  });

  it("CANCELLED without a cancel request is 400 CANCEL_NOT_REQUESTED and changes nothing", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.lock(job.id);
    const before = await fingerprint(job.id);
    const res = await rt.fail(job.id, 1, "CANCELLED");
    expect([res.status, res.body.error.code]).toEqual([400, "CANCEL_NOT_REQUESTED"]);
    expect(await fingerprint(job.id)).toEqual(before);
  });
});
