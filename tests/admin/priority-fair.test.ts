import { describe, expect, it } from "vitest";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { setJobPriority } from "@/server/admin/priority";
import { getDb } from "@/server/db";

/**
 * A priority change recomputes the job's fair-queue turn. Before, a job raised
 * into a busier priority kept the turn it had in its old one and was claimed after younger jobs
 * of other learners. This file has its own database: every pending job here is one of ours.
 */
const TYPE = "flashcard_generation";
const ids = (res: { body: { jobs: { job: { id: string } }[] } }) => res.body.jobs.map((j) => j.job.id);

describe("priority and fair order", () => {
  it("a job raised to a higher priority takes the head turn there, ahead of younger jobs of other learners", async () => {
    const [a, b] = await Promise.all([createLearner(), createLearner()]);
    const backlog = [];
    for (let i = 0; i < 8; i++) backlog.push((await createTestJob(a, TYPE, { params: { count: 3 } })).id);
    const raised = backlog.at(-1)!; // turn 7 at priority 0
    const urgent = [];
    for (let i = 0; i < 3; i++) urgent.push((await createTestJob(b, TYPE, { params: { count: 3 }, priority: -1 })).id);

    expect(await setJobPriority(raised, -1, uid("admin"))).toMatchObject({ priority: -1, previous: 0 });
    const row = await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: raised } });
    expect(row.queueTurn).toBe(0); // the head of priority -1, not its old turn 7

    const rt = runtime(await runtimeKey(), uid("rt"));
    const order: string[] = [];
    for (let i = 0; i < 5; i++) order.push(...ids(await rt.poll({ capabilities: [TYPE], limit: 1, claim: true })));
    // Priority -1 first: the raised job shares turn 0 with B's first job and is older, then B's.
    expect(order).toEqual([raised, ...urgent, backlog[0]]);
  });

  it("setting the same priority again keeps the turn", async () => {
    const a = await createLearner();
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push(await createTestJob(a, TYPE, { params: { count: 3 }, priority: 4 }));
    const before = await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: jobs[2]!.id } });
    await setJobPriority(jobs[2]!.id, 4, uid("admin"));
    const after = await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: jobs[2]!.id } });
    expect(after.queueTurn).toBe(before.queueTurn);
    expect(after.queueTurn).toBeGreaterThan(0);
  });
});
