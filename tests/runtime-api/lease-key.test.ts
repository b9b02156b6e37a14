import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { releaseJobsOf } from "../helpers/release-jobs";
import { runtime } from "../helpers/runtime-api";

/**
 * A lease belongs to the Runtime key that took it as well as to runtimeInstanceId (docs/contract.md#the-runtime-protocol):
 * another valid key that sends the holder's instance id and attempt number gets 404 JOB_NOT_FOUND on
 * heartbeat, result and fail, the answer for a job that does not exist (it learns nothing of another
 * key's job), and the job is left exactly as it was; the holder carries on.
 */
let a: Learner;
let holderKey: string;
let otherKey: string;

beforeAll(async () => {
  [a, holderKey, otherKey] = await Promise.all([createLearner(), runtimeKey(), runtimeKey()]);
});
afterAll(() => releaseJobsOf([a]));

async function heldJob() {
  const instance = uid("holder");
  const job = await createTestJob(a);
  const lock = await runtime(holderKey, instance).lock(job.id);
  expect(lock.status).toBe(200);
  return { jobId: job.id, instance, attemptNo: lock.body.job.attemptNo as number };
}

describe("a lease is bound to the key that took it", () => {
  it("heartbeat, result and fail under another key are answered as for no such job and change nothing", async () => {
    const { jobId, instance, attemptNo } = await heldJob();
    const before = await jobRow(jobId);
    const thief = runtime(otherKey, instance);
    const output = validOutput(
      "learning_state_analysis",
      a.knowledgePoints.map((k) => k.id),
    );
    const answers = [
      await thief.heartbeat(jobId, attemptNo, { stage: "prompt_builder", progress: 5 }),
      await thief.result(jobId, attemptNo, output),
      await thief.fail(jobId, attemptNo, "INVALID_SNAPSHOT"),
    ];
    const missing = [
      await thief.heartbeat("no_such_job", attemptNo),
      await thief.result("no_such_job", attemptNo, output),
      await thief.fail("no_such_job", attemptNo, "INVALID_SNAPSHOT"),
    ];
    for (const [i, res] of answers.entries()) {
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: "JOB_NOT_FOUND", message: `job ${jobId} not found` });
      expect(missing[i]!.body.error).toEqual({ code: "JOB_NOT_FOUND", message: "job no_such_job not found" });
    }
    const after = await jobRow(jobId);
    expect(after.status).toBe("locked");
    expect(after.lockUntil).toEqual(before.lockUntil);
    expect(after.events).toHaveLength(before.events.length);
    expect(after.result).toBeNull();

    // The real holder still holds it.
    const holder = runtime(holderKey, instance);
    expect((await holder.heartbeat(jobId, attemptNo, { stage: "prompt_builder", progress: 10 })).status).toBe(200);
    expect((await holder.result(jobId, attemptNo, output)).status).toBe(200);
    expect((await jobRow(jobId)).status).toBe("succeeded");
  });

  it("a lease taken by claim is bound the same way", async () => {
    const instance = uid("claimer");
    const job = await createTestJob(a, "flashcard_generation");
    // Claim only this learner's type of job under a fresh instance until ours comes back.
    let attemptNo = 0;
    for (let i = 0; i < 20 && !attemptNo; i++) {
      const res = await runtime(holderKey, instance).poll({
        capabilities: ["flashcard_generation"],
        limit: 50,
        claim: true,
      });
      expect(res.status).toBe(200);
      for (const j of res.body.jobs) if (j.job.id === job.id) attemptNo = j.job.attemptNo;
    }
    expect(attemptNo).toBe(1);
    const res = await runtime(otherKey, instance).fail(job.id, attemptNo, "NETWORK_ERROR");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("JOB_NOT_FOUND");
    expect((await jobRow(job.id)).lockedByKeyId).not.toBeNull();
    expect((await runtime(holderKey, instance).fail(job.id, attemptNo, "NETWORK_ERROR")).status).toBe(200);
  });
});
