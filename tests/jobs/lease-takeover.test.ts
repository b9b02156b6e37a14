import { afterEach, describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { advanceClock, now, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { cancelJob } from "@/server/jobs/cancel";

/**
 * docs/contract.md#states-and-transitions: correctness never depends on the sweep. Nothing here runs the sweep or a scheduler
 * (a test process starts neither): claim and poll themselves end a passed lease, in the statement
 * that takes or reads jobs, exactly as the sweep would.
 */
const LEASE_PASSED = 61_000;
const BACKOFF_PASSED = 6_000; // the first retry waits 2.5–5 s (JOB_BACKOFF_BASE_MS 5 s, equal jitter)

const path = (events: { fromStatus: string | null; toStatus: string; actorId: string | null }[]) =>
  events.map((e) => `${e.fromStatus ?? "new"}>${e.toStatus}`);

describe("a passed lease is lost at claim and poll, without the sweep", () => {
  afterEach(() => resetClock());

  it("a claim ends the dead holder's attempt; the job is claimed again after its backoff; the old holder is LOCK_LOST; one result", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const key = await runtimeKey();
    const dead = runtime(key, uid("dead"));
    const alive = runtime(key, uid("alive"));

    const first = await dead.poll({ claim: true, limit: 1 });
    expect(first.body.jobs.map((j: { job: { id: string } }) => j.job.id)).toEqual([job.id]);
    expect((await dead.heartbeat(job.id, 1, { progress: 10 })).status).toBe(200);

    advanceClock(LEASE_PASSED);
    const before = now().getTime();
    // The claim that finds the passed lease ends the attempt as the sweep would: expired, then
    // back to pending with retryCount + 1 and the retry's backoff, so it is not in this claim.
    const during = await alive.poll({ claim: true, limit: 5 });
    expect(during.status).toBe(200);
    expect(during.body.jobs).toEqual([]);
    const after = now().getTime();
    const ended = await jobRow(job.id);
    expect(ended.status).toBe("pending");
    expect(ended.retryCount).toBe(1);
    expect([ended.lockedBy, ended.lockUntil]).toEqual([null, null]);
    expect(ended.runAfter.getTime() - before).toBeGreaterThanOrEqual(2_500);
    expect(ended.runAfter.getTime() - after).toBeLessThanOrEqual(5_000);
    expect(path(ended.events)).toEqual([
      "new>pending",
      "pending>locked",
      "locked>running",
      "running>expired",
      "expired>pending",
    ]);
    const expiredEvent = ended.events.find((e) => e.toStatus === "expired")!;
    expect([expiredEvent.actorType, expiredEvent.actorId, expiredEvent.attemptNo, expiredEvent.errorCode]).toEqual([
      "system",
      "claim",
      1,
      "JOB_TIMEOUT",
    ]);

    // The old holder has lost its lease: heartbeat refused.
    const hb = await dead.heartbeat(job.id, 1, { progress: 90 });
    expect([hb.status, hb.body.error.code]).toEqual([409, "LOCK_LOST"]);

    advanceClock(BACKOFF_PASSED);
    const taken = await alive.poll({ claim: true, limit: 5 });
    expect(taken.body.jobs.map((j: { job: { id: string; attemptNo: number } }) => [j.job.id, j.job.attemptNo])).toEqual(
      [[job.id, 2]],
    );

    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    // The dead holder comes back with its result: LOCK_LOST, nothing stored.
    const late = await dead.result(job.id, 1, output);
    expect([late.status, late.body.error.code]).toEqual([409, "LOCK_LOST"]);
    const ok = await alive.result(job.id, 2, output);
    expect([ok.status, ok.body.status, ok.body.idempotent]).toEqual([200, "succeeded", false]);
    const again = await alive.result(job.id, 2, output);
    expect([again.status, again.body.idempotent]).toEqual([200, true]);
    // After the success, the dead holder's retry is told a result exists; still nothing stored.
    expect((await dead.result(job.id, 1, output)).body.error.code).toBe("RESULT_ALREADY_EXISTS");

    const done = await jobRow(job.id);
    expect(done.status).toBe("succeeded");
    expect(done.result?.attemptNo).toBe(2);
    expect(await getDb().aiRuntimeResult.count({ where: { jobId: job.id } })).toBe(1);
    expect(done.events.filter((e) => e.toStatus === "succeeded").map((e) => e.attemptNo)).toEqual([2]);
  });

  it("a poll (no claim) ends a passed lease too; spent retries end failed with JOB_TIMEOUT", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "learning_state_analysis", { maxRetryCount: 0 });
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(job.id)).status).toBe(200);

    advanceClock(LEASE_PASSED - 2_000);
    expect((await rt.poll()).status).toBe(200);
    expect((await jobRow(job.id)).status).toBe("locked"); // not passed yet: untouched

    advanceClock(2_000);
    const polled = await rt.poll();
    expect(polled.status).toBe(200);
    expect(polled.body.jobs.map((j: { id: string }) => j.id)).not.toContain(job.id);
    const row = await jobRow(job.id);
    expect([row.status, row.errorCode, row.retryCount]).toEqual(["failed", "JOB_TIMEOUT", 0]);
    expect(row.finishedAt).not.toBeNull();
    expect(path(row.events).slice(-2)).toEqual(["locked>expired", "expired>failed"]);
    expect(row.events.at(-1)!.actorId).toBe("poll");
    expect((await rt.heartbeat(job.id, 1)).body.error.code).toBe("LOCK_LOST");
  });

  it("a job asked to cancel whose lease ends is cancelled, not retried (docs/contract.md#states-and-transitions)", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "flashcard_generation");
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(job.id)).status).toBe(200);
    expect((await cancelJob(job.id, { type: "learner", id: learner.user.id })).cancelRequested).toBe(true);

    advanceClock(LEASE_PASSED);
    expect((await rt.poll({ claim: true })).body.jobs).toEqual([]);
    const row = await jobRow(job.id);
    expect([row.status, row.errorCode, row.retryCount]).toEqual(["cancelled", "CANCELLED", 0]);
    expect(path(row.events).slice(-2)).toEqual(["locked>expired", "expired>cancelled"]);
  });

  it("the execution timeout caps a heartbeating lease, and the next claim ends it (startedAt kept)", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "next_action_planning", { timeoutSeconds: 30, maxRetryCount: 1 });
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(job.id)).status).toBe(200);
    const started = now().getTime();
    expect((await rt.heartbeat(job.id, 1)).status).toBe(200);
    advanceClock(20_000);
    expect((await rt.heartbeat(job.id, 1)).status).toBe(200); // lease now capped at lockedAt + 30 s
    advanceClock(11_000);
    expect((await rt.poll({ claim: true })).body.jobs).toEqual([]);
    const row = await jobRow(job.id);
    expect([row.status, row.retryCount]).toEqual(["pending", 1]);
    expect(row.errorMessage).toMatch(/execution timeout/);
    expect(row.startedAt!.getTime()).toBeGreaterThanOrEqual(started);
    expect(row.startedAt!.getTime()).toBeLessThan(started + 5_000);
  });

  it("a timeoutSeconds under the shortest lease the claim relies on is refused at creation", async () => {
    const learner = await createLearner();
    await expect(createTestJob(learner, "learning_state_analysis", { timeoutSeconds: 5 })).rejects.toMatchObject({
      code: "INVALID_PARAMS",
    });
  });
});
