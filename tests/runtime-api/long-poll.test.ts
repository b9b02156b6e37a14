import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJobWaiters, drainWaiters, JobWaiters } from "@/server/events/job-waiters";
import { getJobFeed, JobFeed } from "@/server/events/job-feed";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { eventually, startApiServer } from "../runtime/api-server";

/**
 * Long poll (docs/contract.md#the-runtime-protocol waitMs) over real HTTP: a waiting poll returns the job created after it,
 * a wait with nothing to find ends with jobs: [], a client that disconnects frees its waiter,
 * a draining server answers waiters at once, a retry is picked up when its runAfter is reached,
 * and one new job wakes one claiming Runtime, not all of them. Each test uses its own job type
 * set or learner so waiters of one test do not take another's jobs (the file has its own database).
 */
let api: Awaited<ReturnType<typeof startApiServer>>;
let key: string;
let a: Learner;

beforeAll(async () => {
  [api, key, a] = await Promise.all([startApiServer(), runtimeKey(), createLearner()]);
  await eventually("LISTEN connection up", async () => getJobFeed().connected, 10_000);
  process.env.JOB_BACKOFF_BASE_MS = "400";
  process.env.JOB_BACKOFF_CAP_MS = "400";
});
afterAll(async () => {
  delete process.env.JOB_BACKOFF_BASE_MS;
  delete process.env.JOB_BACKOFF_CAP_MS;
  await releaseJobsOf([a]);
  await api.close();
});

function poll(body: Record<string, unknown>, signal?: AbortSignal) {
  return fetch(`${api.url}/internal/runtime/jobs/poll`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ runtimeInstanceId: uid("lp"), ...body }),
    signal,
  }).then(async (res) => ({ status: res.status, body: await res.json(), at: Date.now() }));
}

const waitersAtLeast = (n: number) =>
  eventually(`${n} waiter(s) parked`, async () => getJobWaiters().size >= n, 10_000);

describe("long poll", () => {
  it("a waiting claim returns the job created after it, well before waitMs", async () => {
    const started = Date.now();
    const answer = poll({ capabilities: ["quiz_generation"], claim: true, limit: 1, waitMs: 15_000 });
    await waitersAtLeast(1);
    const job = await createTestJob(a, "quiz_generation");
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body.jobs.map((j: { job: { id: string } }) => j.job.id)).toEqual([job.id]);
    expect(res.at - started).toBeLessThan(15_000);
    expect((await jobRow(job.id)).status).toBe("locked");
  });

  it("a plain poll (no claim) is woken too and takes nothing", async () => {
    const answer = poll({ capabilities: ["weak_point_analysis"], waitMs: 15_000 });
    await waitersAtLeast(1);
    const job = await createTestJob(a, "weak_point_analysis");
    const res = await answer;
    expect(res.body.jobs.map((j: { id: string }) => j.id)).toContain(job.id);
    expect((await jobRow(job.id)).status).toBe("pending");
    await releaseJobsOf([a]);
    a = await createLearner();
  });

  it("ends with jobs: [] when the wait passes, and frees its waiter", async () => {
    const before = getJobWaiters().size;
    const started = Date.now();
    const res = await poll({ capabilities: ["next_action_planning"], claim: true, waitMs: 400 });
    expect(res.status).toBe(200);
    expect(res.body.jobs).toEqual([]);
    expect(res.at - started).toBeGreaterThanOrEqual(390);
    expect(getJobWaiters().size).toBe(before);
  });

  it("refuses a waitMs beyond 20 s, negative, fractional or not a number with 400, holding nothing", async () => {
    const before = getJobWaiters().size;
    for (const waitMs of [20_001, -1, 1.5, "20000", 1e12, null, { toString: 1 }]) {
      const res = await poll({ capabilities: ["next_action_planning"], waitMs });
      expect(res.status, JSON.stringify(waitMs)).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
      expect(res.body.error.details[0].path).toBe("waitMs");
    }
    expect(getJobWaiters().size).toBe(before);
  });

  it("a client that disconnects frees its waiter, and the next job goes to a Runtime still waiting", async () => {
    const before = getJobWaiters().size;
    const gone = new AbortController();
    const abandoned = poll({ capabilities: ["flashcard_generation"], claim: true, waitMs: 15_000 }, gone.signal).catch(
      (e) => e,
    );
    await waitersAtLeast(before + 1);
    gone.abort();
    expect(await abandoned).toBeInstanceOf(Error);
    await eventually("waiter freed", async () => getJobWaiters().size === before, 5_000);

    const waiting = poll({ capabilities: ["flashcard_generation"], claim: true, waitMs: 15_000 });
    await waitersAtLeast(before + 1);
    const job = await createTestJob(a, "flashcard_generation");
    expect((await waiting).body.jobs[0].job.id).toBe(job.id);
  });

  it("a retried job is picked up when its runAfter is reached", async () => {
    const job = await createTestJob(a, "learning_state_analysis");
    const first = await poll({
      runtimeInstanceId: "retry-holder",
      capabilities: ["learning_state_analysis"],
      claim: true,
      limit: 1,
    });
    expect(first.body.jobs[0].job.id).toBe(job.id);
    const failed = await fetch(`${api.url}/internal/runtime/jobs/${job.id}/fail`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        runtimeInstanceId: "retry-holder",
        attemptNo: 1,
        errorCode: "NETWORK_ERROR",
        errorMessage: "x",
      }),
    });
    expect(failed.status).toBe(200);
    const row = await jobRow(job.id);
    expect(row.status).toBe("pending");
    expect(row.runAfter.getTime()).toBeGreaterThan(Date.now());
    const res = await poll({ capabilities: ["learning_state_analysis"], claim: true, limit: 1, waitMs: 15_000 });
    expect(res.body.jobs[0].job.id).toBe(job.id);
    expect(res.body.jobs[0].job.attemptNo).toBe(2);
    expect(res.at).toBeGreaterThanOrEqual(row.runAfter.getTime());
  });

  it("one new job wakes one claiming Runtime; the others keep waiting", async () => {
    const before = getJobWaiters().size;
    const answers = Array.from({ length: 3 }, () =>
      poll({ capabilities: ["quiz_generation"], claim: true, limit: 1, waitMs: 2_000 }),
    );
    await waitersAtLeast(before + 3);
    const job = await createTestJob(a, "quiz_generation");
    await eventually("the job is claimed", async () => (await jobRow(job.id)).status === "locked", 5_000);
    // The two that were not woken are still parked; nobody re-queried for them.
    expect(getJobWaiters().size).toBe(before + 2);
    const results = await Promise.all(answers);
    const got = results.filter((r) => r.body.jobs.length);
    expect(got).toHaveLength(1);
    expect(got[0]!.body.jobs[0].job.id).toBe(job.id);
  });

  it("works across app instances: another process's LISTEN connection wakes its own waiter", async () => {
    // A second instance as the app would have it: its own LISTEN connection and its own waiters.
    const feed = new JobFeed(process.env.DATABASE_URL!).start();
    try {
      await eventually("second LISTEN connection up", async () => feed.connected, 10_000);
      const other = new JobWaiters(feed);
      const waiter = other.register(["quiz_generation"], true);
      const woken = waiter.wait(10_000);
      await createTestJob(a, "quiz_generation");
      expect(await woken).toBe("woken");
      waiter.cancel(true);
    } finally {
      await feed.stop();
    }
  });

  it("a draining server answers every waiter at once with no jobs, and holds no new ones", async () => {
    const before = getJobWaiters().size;
    const answers = Array.from({ length: 3 }, () =>
      poll({ capabilities: ["next_action_planning"], claim: true, waitMs: 15_000 }),
    );
    await waitersAtLeast(before + 3);
    const drainedAt = Date.now();
    drainWaiters();
    try {
      for (const res of await Promise.all(answers)) {
        expect(res.status).toBe(200);
        expect(res.body.jobs).toEqual([]);
        expect(res.at - drainedAt).toBeLessThan(5_000);
      }
      const late = Date.now();
      const res = await poll({ capabilities: ["next_action_planning"], claim: true, waitMs: 15_000 });
      expect(res.body.jobs).toEqual([]);
      expect(res.at - late).toBeLessThan(5_000);
    } finally {
      getJobWaiters().resume();
    }
  });
});
