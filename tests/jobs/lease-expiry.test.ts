import { afterEach, describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { fingerprint } from "../helpers/states";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { advanceClock, now, resetClock } from "@/server/clock";
import { sweepExpiredLeases } from "@/server/jobs/sweep";
import { getDb } from "@/server/db";

const MINUTE = 60_000;

describe("leases, expiry and the sweep", () => {
  afterEach(() => resetClock());

  it("an abandoned lease is swept back to pending until maxRetryCount, then fails with JOB_TIMEOUT", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "learning_state_analysis", { maxRetryCount: 2 });
    const rt = runtime(await runtimeKey(), uid("rt"));

    for (let attempt = 1; attempt <= 3; attempt++) {
      const locked = await rt.lock(job.id);
      expect(locked.status).toBe(200);
      expect(locked.body.job.attemptNo).toBe(attempt);
      advanceClock(2 * MINUTE); // past the 60 s lease
      const before = now().getTime();
      const swept = await sweepExpiredLeases();
      const after = now().getTime();
      expect(swept.expired).toBeGreaterThanOrEqual(1);
      const row = await jobRow(job.id);
      if (attempt < 3) {
        expect(row.status).toBe("pending");
        expect(row.retryCount).toBe(attempt);
        expect(row.lockedBy).toBeNull();
        expect(row.lockUntil).toBeNull();
        // JOB_TIMEOUT retries back off like every retryable failure: base · 2^retry, equal jitter.
        // The sweep ran at some instant between before and after (no timing tolerance to race).
        const step = 5_000 * 2 ** (attempt - 1);
        expect(row.runAfter.getTime() - before).toBeGreaterThanOrEqual(step / 2);
        expect(row.runAfter.getTime() - after).toBeLessThanOrEqual(step);
        advanceClock(MINUTE);
      } else {
        expect(row.status).toBe("failed");
        expect(row.retryCount).toBe(2);
        expect(row.errorCode).toBe("JOB_TIMEOUT");
        expect(row.finishedAt).not.toBeNull();
      }
    }
    const row = await jobRow(job.id);
    const path = row.events.map((e) => `${e.fromStatus ?? "new"}>${e.toStatus}`);
    expect(path).toEqual([
      "new>pending",
      "pending>locked",
      "locked>expired",
      "expired>pending",
      "pending>locked",
      "locked>expired",
      "expired>pending",
      "pending>locked",
      "locked>expired",
      "expired>failed",
    ]);
    expect(row.events.filter((e) => e.toStatus === "expired").map((e) => e.attemptNo)).toEqual([1, 2, 3]);
  });

  it("a heartbeat or result from the expired attempt gets LOCK_LOST and changes nothing", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const key = await runtimeKey();
    const slow = runtime(key, uid("slow"));
    const fast = runtime(key, uid("fast"));
    expect((await slow.lock(job.id)).status).toBe(200);
    expect((await slow.heartbeat(job.id, 1)).status).toBe(200);
    advanceClock(2 * MINUTE);
    await sweepExpiredLeases();
    advanceClock(MINUTE); // past the retry's backoff
    expect((await fast.lock(job.id)).body.job.attemptNo).toBe(2);

    const before = await fingerprint(job.id);
    const hb = await slow.heartbeat(job.id, 1, { progress: 90 });
    expect([hb.status, hb.body.error.code]).toEqual([409, "LOCK_LOST"]);
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    const res = await slow.result(job.id, 1, output);
    expect([res.status, res.body.error.code]).toEqual([409, "LOCK_LOST"]);
    const fail = await slow.fail(job.id, 1, "MODEL_TIMEOUT");
    expect([fail.status, fail.body.error.code]).toEqual([409, "LOCK_LOST"]);
    // Even with the right instance id, an old attempt number is refused.
    const stale = await fast.heartbeat(job.id, 1);
    expect([stale.status, stale.body.error.code]).toEqual([409, "LOCK_LOST"]);
    expect(await fingerprint(job.id)).toEqual(before);

    expect((await fast.result(job.id, 2, output)).status).toBe(200);
  });

  it("a passed lockUntil is lost before any sweep: heartbeat and result refused, lock takes the job over", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const key = await runtimeKey();
    const first = runtime(key, uid("first"));
    const second = runtime(key, uid("second"));
    expect((await first.lock(job.id)).status).toBe(200);
    advanceClock(61_000);

    const before = await fingerprint(job.id);
    expect((await first.heartbeat(job.id, 1)).body.error.code).toBe("LOCK_LOST");
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    expect((await first.result(job.id, 1, output)).body.error.code).toBe("LOCK_LOST");
    expect(await fingerprint(job.id)).toEqual(before);

    const taken = await second.lock(job.id);
    expect(taken.status).toBe(200);
    expect(taken.body.job.attemptNo).toBe(2);
    const row = await jobRow(job.id);
    expect(row.retryCount).toBe(1);
    expect(row.lockedBy).toBe(second.id);
    expect(row.events.map((e) => e.toStatus)).toEqual(["pending", "locked", "expired", "pending", "locked"]);
  });

  it("a lease's check time stays put while heartbeats come on time, moves within half a lease of now, never passes lockUntil", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis", { timeoutSeconds: 600 });
    const rt = runtime(await runtimeKey(), uid("rt"));
    const watcher = runtime(await runtimeKey(), uid("watcher"));
    expect((await rt.lock(job.id)).status).toBe(200);
    const t0 = (await jobRow(job.id)).lockedAt!.getTime();
    /** The lease's check time and end, from the lock's time. */
    const lease = async () => {
      const row = await jobRow(job.id);
      return { check: row.leaseCheckAt!.getTime() - t0, until: row.lockUntil!.getTime() - t0 };
    };
    expect(await lease()).toEqual({ check: 60_000, until: 60_000 });
    // 20 s on: the check time is 40 s ahead, more than half a lease, so it stays (a HOT update).
    advanceClock(20_000);
    expect((await rt.heartbeat(job.id, 1)).status).toBe(200);
    const second = await lease();
    expect(second.check).toBe(60_000);
    expect(second.until).toBeGreaterThanOrEqual(80_000);
    // 35 s on: 25 s ahead, within half a lease: it moves to the lease's new end.
    advanceClock(15_000);
    expect((await rt.heartbeat(job.id, 1)).status).toBe(200);
    const third = await lease();
    expect(third.check).toBe(third.until);
    expect(third.until).toBeGreaterThanOrEqual(95_000);
    // The Runtime goes quiet. A second before the end the lease holds; just after, another
    // Runtime's poll ends it (no sweep), and the check time is cleared with the lease.
    advanceClock(t0 + third.until - now().getTime() - 1_000);
    expect((await watcher.poll({ limit: 1 })).status).toBe(200);
    expect((await jobRow(job.id)).status).toBe("running");
    advanceClock(2_000);
    expect((await watcher.poll({ limit: 1 })).status).toBe(200);
    const row = await jobRow(job.id);
    expect(row.status).toBe("pending");
    expect(row.leaseCheckAt).toBeNull();
    expect(row.lockUntil).toBeNull();
    expect(row.events.at(-2)).toMatchObject({ fromStatus: "running", toStatus: "expired", actorId: "poll" });
  });

  it("a lease without a check time (taken by an instance from before the column) is still swept; a heartbeat gives it one", async () => {
    const learner = await createLearner();
    const [healed, lost] = [await createTestJob(learner), await createTestJob(learner)];
    const rt = runtime(await runtimeKey(), uid("old"));
    for (const job of [healed, lost]) {
      expect((await rt.lock(job.id)).status).toBe(200);
      await getDb().aiRuntimeJob.update({ where: { id: job.id }, data: { leaseCheckAt: null } });
    }
    expect((await rt.heartbeat(healed.id, 1)).status).toBe(200);
    const row = await jobRow(healed.id);
    expect(row.leaseCheckAt).toEqual(row.lockUntil);
    // The other one's Runtime is gone: a claim's prelude cannot see it (no check time), the sweep does.
    advanceClock(2 * MINUTE);
    const swept = await sweepExpiredLeases();
    expect(swept.expired).toBeGreaterThanOrEqual(2);
    for (const job of [healed, lost]) expect((await jobRow(job.id)).status).toBe("pending");
  });

  it("timeoutSeconds expires a running job even while it keeps heartbeating", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "next_action_planning", { timeoutSeconds: 90, maxRetryCount: 0 });
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(job.id)).status).toBe(200);
    let lastLease = 0;
    for (let t = 0; t < 80; t += 20) {
      const hb = await rt.heartbeat(job.id, 1, { progress: t });
      expect(hb.status).toBe(200);
      lastLease = new Date(hb.body.lockUntil).getTime();
      advanceClock(20_000);
    }
    // The lease never reaches past lockedAt + 90 s, however often the Runtime heartbeats.
    const row0 = await jobRow(job.id);
    expect(lastLease).toBe(row0.lockedAt!.getTime() + 90_000);
    advanceClock(20_000);
    const late = await rt.heartbeat(job.id, 1);
    expect(late.body.error.code).toBe("LOCK_LOST");
    await sweepExpiredLeases();
    const row = await jobRow(job.id);
    expect(row.status).toBe("failed");
    expect(row.errorCode).toBe("JOB_TIMEOUT");
    expect(row.errorMessage).toMatch(/execution timeout/);
  });

  it("the sweep works in bounded batches and leaves live leases alone", async () => {
    const learner = await createLearner();
    const key = await runtimeKey();
    const rt = runtime(key, uid("rt"));
    const jobs = await Promise.all(Array.from({ length: 7 }, () => createTestJob(learner, "flashcard_generation")));
    for (const j of jobs) expect((await rt.lock(j.id)).status).toBe(200);
    advanceClock(2 * MINUTE);
    const live = await createTestJob(learner, "flashcard_generation");
    expect((await rt.lock(live.id)).status).toBe(200);
    const swept = await sweepExpiredLeases({ batchSize: 3 });
    expect(swept.batches).toBeGreaterThanOrEqual(3);
    for (const j of jobs) expect((await jobRow(j.id)).status).toBe("pending");
    expect((await jobRow(live.id)).status).toBe("locked");
  });
});
