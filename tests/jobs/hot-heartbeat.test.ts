import { expect, it } from "vitest";
import pg from "pg";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { runtime } from "../helpers/runtime-api";
import { eventually } from "../helpers/eventually";

/**
 * A heartbeat that does not change the status moves only lockUntil, stage, progress and
 * updatedAt: no indexed column (the lease index is on lockedAt) and room on the page
 * (fillfactor 85), so PostgreSQL writes it as a HOT update — one heap record instead of a new
 * entry in each of the job row's indexes. Read from PostgreSQL's own counters.
 */
it("later heartbeats are HOT updates", async () => {
  const learner = await createLearner();
  const job = await createTestJob(learner);
  const rt = runtime(await runtimeKey(), uid("hot"));
  const attemptNo = (await rt.lock(job.id)).body.job.attemptNo as number;
  expect((await rt.heartbeat(job.id, attemptNo, { stage: "prompt_builder", progress: 5 })).status).toBe(200);

  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    const counts = async () =>
      (
        await db.query(
          `SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'AiRuntimeJob'`,
        )
      ).rows[0] as { upd: number; hot: number };
    // Statistics reach the shared counters when a backend has been idle a moment: wait until they settle.
    let before = await counts();
    await eventually(
      "statistics settled",
      async () => {
        await new Promise((r) => setTimeout(r, 1200));
        const now = await counts();
        const same = now.upd === before.upd;
        before = now;
        return same;
      },
      20_000,
    );
    for (let i = 1; i <= 5; i++)
      expect((await rt.heartbeat(job.id, attemptNo, { stage: "model_inference", progress: 20 + i })).status).toBe(200);
    const after = await eventually(
      "5 updates counted",
      async () => {
        const now = await counts();
        return now.upd >= before.upd + 5 ? now : null;
      },
      20_000,
    );
    // (A straggling count from before the window may add one more update; ours are all HOT.)
    expect(after.hot - before.hot).toBeGreaterThanOrEqual(5);
  } finally {
    await db.end();
    await releaseJobsOf([learner]);
  }
}, 60_000);
