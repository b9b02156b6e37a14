import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLearner, createTestJob, runtimeKey, uid, type Learner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { runtime } from "../helpers/runtime-api";

/**
 * Fair order (docs/contract.md#the-runtime-protocol): within a priority, poll and claim take learners in turns (start-time fair
 * queueing: a new job starts one turn after its learner's last waiting job, never behind the head
 * of the queue) instead of pure age order, so one learner's backlog cannot hold back everyone
 * else; priority still comes first and each learner's own jobs stay in age order.
 * This file has its own database: every pending job here is one of ours.
 */
const TYPE = "weak_point_analysis";
let a: Learner, b: Learner, c: Learner;
let key: string;

beforeAll(async () => {
  [a, b, c, key] = await Promise.all([createLearner(), createLearner(), createLearner(), runtimeKey()]);
});
afterAll(() => releaseJobsOf([a, b, c]));

const ids = (res: { body: { jobs: { id?: string; job?: { id: string } }[] } }) =>
  res.body.jobs.map((j) => j.job?.id ?? j.id!);

describe("fair order across learners", () => {
  it("a learner's new job is claimed within two claims although another learner has 40 older jobs queued", async () => {
    const backlog: string[] = [];
    for (let i = 0; i < 40; i++) backlog.push((await createTestJob(a, TYPE)).id);
    const rt = runtime(key, uid("fair"));
    // Four claims of A's backlog are in flight (busy Runtimes), then B asks for one analysis.
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(...ids(await rt.poll({ capabilities: [TYPE], limit: 1, claim: true })));
    expect(taken).toEqual(backlog.slice(0, 4));
    const fresh = (await createTestJob(b, TYPE)).id;

    // B's job starts at the head of the queue: it shares that turn with A's next job (older, so
    // first), then A's backlog continues in its own age order.
    const next: string[] = [];
    for (let i = 0; i < 5; i++) next.push(...ids(await rt.poll({ capabilities: [TYPE], limit: 1, claim: true })));
    expect(next).toEqual([backlog[4], fresh, ...backlog.slice(5, 8)]);
    await releaseJobsOf([a, b]);
  });

  it("poll interleaves learners turn by turn, oldest first within a turn", async () => {
    const [l1, l2, l3] = await Promise.all([createLearner(), createLearner(), createLearner()]);
    const a1 = (await createTestJob(l1, TYPE)).id;
    const a2 = (await createTestJob(l1, TYPE)).id;
    const a3 = (await createTestJob(l1, TYPE)).id;
    const b1 = (await createTestJob(l2, TYPE)).id;
    const c1 = (await createTestJob(l3, TYPE)).id;
    const b2 = (await createTestJob(l2, TYPE)).id;
    const res = await runtime(key, uid("fair")).poll({ capabilities: [TYPE], limit: 10 });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([a1, b1, c1, a2, b2, a3]);
    await releaseJobsOf([l1, l2, l3]);
  });

  it("priority still comes first, then turns", async () => {
    // Lower numbers first, as before.
    const [l1, l2] = await Promise.all([createLearner(), createLearner()]);
    const low1 = (await createTestJob(l1, TYPE, { priority: 5 })).id;
    const high1 = (await createTestJob(l1, TYPE, { priority: 1 })).id;
    const high2 = (await createTestJob(l1, TYPE, { priority: 1 })).id;
    const high3 = (await createTestJob(l2, TYPE, { priority: 1 })).id;
    const res = await runtime(key, uid("fair")).poll({ capabilities: [TYPE], limit: 10 });
    expect(ids(res)).toEqual([high1, high3, high2, low1]);
    await releaseJobsOf([l1, l2]);
  });

  it("concurrent claimers still get disjoint jobs in fair order", async () => {
    const learners = await Promise.all([createLearner(), createLearner(), createLearner()]);
    const created: string[] = [];
    for (const l of learners) for (let i = 0; i < 5; i++) created.push((await createTestJob(l, TYPE)).id);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        runtime(key, uid(`racer${i}`)).poll({ capabilities: [TYPE], limit: 2, claim: true }),
      ),
    );
    const got = answers.flatMap(ids);
    expect(new Set(got).size).toBe(got.length);
    // SKIP LOCKED may leave a racer short; whatever is left comes to the next claim.
    got.push(...ids(await runtime(key, uid("last")).poll({ capabilities: [TYPE], limit: 50, claim: true })));
    expect(got.sort()).toEqual([...created].sort());
    await releaseJobsOf(learners);
  });
});
