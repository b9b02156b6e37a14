import { expect, it } from "vitest";
import pg from "pg";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { runtime } from "../helpers/runtime-api";

/**
 * A heartbeat that does not change the status moves only lockUntil, stage, progress and
 * updatedAt: no indexed column (the lease check time is indexed on the queue row) and room on the
 * page (the job partitions' fillfactor), so PostgreSQL writes it as a HOT update — one heap record instead of a new
 * entry in each of the job row's indexes. Read from the heap page itself (pageinspect): the row
 * version each heartbeat leaves is a heap-only tuple. No statistics counters, which other backends
 * flush whenever they like.
 */
const HEAP_ONLY_TUPLE = 0x8000;

it("later heartbeats are HOT updates", async () => {
  const learner = await createLearner();
  const job = await createTestJob(learner);
  const rt = runtime(await runtimeKey(), uid("hot"));
  const attemptNo = (await rt.lock(job.id)).body.job.attemptNo as number;
  expect((await rt.heartbeat(job.id, attemptNo, { stage: "prompt_builder", progress: 5 })).status).toBe(200);

  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    await db.query("CREATE EXTENSION IF NOT EXISTS pageinspect");
    /** The job row's live version as its heap page records it. */
    const version = async () => {
      // The job table is partitioned (by time): the row lives in one partition's heap.
      const { rows } = await db.query(
        `SELECT ctid::text AS ctid, tableoid::regclass::text AS part FROM "AiRuntimeJob" WHERE id = $1`,
        [job.id],
      );
      const [block, offset] = (rows[0].ctid as string).replace(/[()]/g, "").split(",").map(Number);
      const page = await db.query(`SELECT t_infomask2 FROM heap_page_items(get_raw_page($1, $2)) WHERE lp = $3`, [
        rows[0].part,
        block,
        offset,
      ]);
      return { ctid: rows[0].ctid as string, heapOnly: ((page.rows[0].t_infomask2 as number) & HEAP_ONLY_TUPLE) !== 0 };
    };
    for (let i = 1; i <= 5; i++) {
      const before = await version();
      expect((await rt.heartbeat(job.id, attemptNo, { stage: "model_inference", progress: 20 + i })).status).toBe(200);
      const after = await version();
      expect(after.ctid, "a heartbeat writes a new row version").not.toBe(before.ctid);
      expect(after.heapOnly, `heartbeat ${i} was not a HOT update`).toBe(true);
    }
  } finally {
    await db.end();
    await releaseJobsOf([learner]);
  }
}, 60_000);
