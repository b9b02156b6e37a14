import { expect, it } from "vitest";
import pg from "pg";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { releaseJobsOf } from "../helpers/release-jobs";
import { eventually } from "../helpers/eventually";
import { CHANNEL, jobChangeSchema } from "@/server/jobs/job-change";
import { setJobPriority } from "@/server/admin/priority";

/**
 * Every writer of a job-change push (creation in JS, the state machine's transitions and the
 * admin's priority change in SQL) builds it from the one field list in server/jobs/job-change.ts,
 * so the LISTEN side's schema parses every one, with the same fields.
 */
it("creation, a transition and a priority change push the same shape, which the feed's schema parses", async () => {
  const learner = await createLearner();
  const admin = (await createLearner({ role: "admin" })).user;
  const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await listener.connect();
  const payloads: Record<string, unknown>[] = [];
  listener.on("notification", (m) => {
    if (m.channel === CHANNEL) payloads.push(JSON.parse(m.payload!));
  });
  await listener.query(`LISTEN ${CHANNEL}`);
  try {
    const first = await createTestJob(learner);
    const second = await createTestJob(learner);
    await setJobPriority(second.id, 5, admin.id);
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(first.id)).status).toBe(200);
    const mine = await eventually(
      "four pushes",
      async () => {
        const list = payloads.filter((p) => p.id === first.id || p.id === second.id);
        return list.length >= 4 ? list : null;
      },
      10_000,
    );
    const created = mine.filter((p) => p.created === true);
    expect(created.map((p) => p.id).sort()).toEqual([first.id, second.id].sort());
    const locked = mine.find((p) => p.id === first.id && p.status === "locked")!;
    const reprioritised = mine.find((p) => p.id === second.id && p.created === undefined)!;
    for (const p of [...created, locked, reprioritised]) expect(jobChangeSchema.safeParse(p).success).toBe(true);
    const fields = Object.keys(jobChangeSchema.shape)
      .filter((k) => k !== "created")
      .sort();
    expect(Object.keys(locked).sort()).toEqual(fields);
    expect(Object.keys(reprioritised).sort()).toEqual(fields);
    expect(
      Object.keys(created[0]!)
        .filter((k) => k !== "created")
        .sort(),
    ).toEqual(fields);
    expect(locked).toMatchObject({
      userId: learner.user.id,
      jobType: "learning_state_analysis",
      attemptNo: 1,
      cancelRequested: false,
    });
  } finally {
    await listener.end();
    await releaseJobsOf([learner]);
  }
});
