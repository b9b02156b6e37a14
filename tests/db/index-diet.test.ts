import { expect, it } from "vitest";
import pg from "pg";
import { createLearner, createTestJob } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";

/**
 * The columns a claim, a heartbeat and a result change. No index of the job table names one (as
 * a key, in an expression or in a predicate), so those updates are HOT: PostgreSQL writes the new
 * row version on the same page and no index entry at all. The queue's state (pending order, fair
 * turn, lease check, live statuses) is indexed on JobQueue instead, kept by the job table's triggers.
 */
const HOT_PATH_COLUMNS = [
  "status",
  "attemptNo",
  "lockedBy",
  "lockedByKeyId",
  "lockedAt",
  "lockUntil",
  "leaseCheckAt",
  "startedAt",
  "finishedAt",
  "stage",
  "progress",
  "progressMessage",
  "updatedAt",
];

/** Whether an index definition names the column (quoted when mixed-case, bare when lower-case). */
const names = (def: string, column: string) =>
  column === column.toLowerCase()
    ? new RegExp(`(^|[^\\w"])"?${column}"?([^\\w"]|$)`).test(def)
    : def.includes(`"${column}"`);

it("no index of the job table or of its partitions names a column the claim, heartbeat or result changes", async () => {
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    const { rows } = await db.query<{ table: string; def: string }>(`
      SELECT i.indrelid::regclass::text AS table, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
      WHERE i.indrelid = '"AiRuntimeJob"'::regclass
         OR i.indrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = '"AiRuntimeJob"'::regclass)`);
    expect(rows.length).toBeGreaterThan(10);
    const offending = rows.filter((r) => HOT_PATH_COLUMNS.some((c) => names(r.def, c))).map((r) => r.def);
    expect(offending).toEqual([]);
    // The check itself sees a column where one is named.
    expect(names(`CREATE INDEX x ON "AiRuntimeJob" USING btree (status, "createdAt")`, "status")).toBe(true);
    expect(names(`CREATE INDEX x ON "AiRuntimeJob" USING btree ("lockUntil")`, "lockUntil")).toBe(true);
    expect(names(`CREATE INDEX x ON t (id) WHERE (x = 'failed'::"JobStatus")`, "status")).toBe(false);
  } finally {
    await db.end();
  }
});

it("claiming a keyless analysis, its heartbeat and its success are HOT updates: the job row writes no index entry", async () => {
  const learner = await createLearner();
  const job = await createTestJob(learner, "learning_state_analysis", { idempotencyKey: null });
  const keyed = await createTestJob(learner, "quiz_generation");
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    await db.query("BEGIN");
    const { rows: parts } = await db.query<{ id: string; part: string }>(
      `SELECT id, tableoid::regclass::text AS part FROM "AiRuntimeJob" WHERE id = ANY($1)`,
      [[job.id, keyed.id]],
    );
    /** This transaction's updates of the job's partition so far, and how many of them were HOT. */
    const counts = async (id: string) => {
      const part = parts.find((p) => p.id === id)!.part;
      const { rows } = await db.query<{ upd: string; hot: string }>(
        `SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_xact_user_tables WHERE relid = $1::regclass`,
        [part],
      );
      return { updates: Number(rows[0]?.upd ?? 0), hot: Number(rows[0]?.hot ?? 0) };
    };
    /** The update, run under EXPLAIN (ANALYZE, WAL): the WAL records the job row's update wrote. */
    const walRecords = async (set: string, id: string) => {
      const [plan] = (
        await db.query(`EXPLAIN (ANALYZE, WAL, FORMAT JSON) UPDATE "AiRuntimeJob" SET ${set} WHERE id = $1`, [id])
      ).rows[0]["QUERY PLAN"];
      return plan.Plan["WAL Records"] as number;
    };
    const claim = `status = 'locked', "attemptNo" = "attemptNo" + 1, "lockedBy" = 'diet', "lockedByKeyId" = NULL,
      "lockedAt" = now(), "lockUntil" = now() + interval '1 minute', "leaseCheckAt" = now() + interval '1 minute',
      stage = NULL, progress = 0, "progressMessage" = NULL, "updatedAt" = now()`;
    const steps = [
      ["claim", claim],
      [
        "first heartbeat",
        `status = 'running', "startedAt" = now(), "lockUntil" = now() + interval '2 minutes',
         "leaseCheckAt" = now() + interval '90 seconds', stage = 'model', progress = 40, "progressMessage" = 'asking', "updatedAt" = now()`,
      ],
      [
        "success",
        `status = 'succeeded', "finishedAt" = now(), "lockedBy" = NULL, "lockUntil" = NULL, "leaseCheckAt" = NULL,
         progress = 100, "updatedAt" = now()`,
      ],
    ] as const;
    for (const [name, set] of steps) {
      const before = await counts(job.id);
      const records = await walRecords(set, job.id);
      const after = await counts(job.id);
      console.log(`[index-diet] ${name} of a keyless job: ${records} WAL records`);
      expect(after.updates - before.updates, name).toBe(1);
      expect(after.hot - before.hot, name).toBe(1);
      // The heap record of the new version (and at most one more, e.g. a page prune): no index's.
      expect(records, name).toBeGreaterThanOrEqual(1);
      expect(records, name).toBeLessThanOrEqual(2);
    }
    // The queue row followed the job (its triggers): in flight while held, gone once it ended.
    expect((await db.query(`SELECT 1 FROM "JobQueue" WHERE "jobId" = $1`, [job.id])).rowCount).toBe(0);
    // A keyed job's claim is HOT too: the idempotency index names the key, which a claim never changes.
    const before = await counts(keyed.id);
    expect(await walRecords(claim, keyed.id)).toBeLessThanOrEqual(2);
    const after = await counts(keyed.id);
    expect(after.hot - before.hot).toBe(1);
    expect((await db.query(`SELECT status FROM "JobQueue" WHERE "jobId" = $1`, [keyed.id])).rows).toEqual([
      { status: "locked" },
    ]);
    await db.query("ROLLBACK");
  } finally {
    await db.query("ROLLBACK").catch(() => {});
    await db.end();
    await releaseJobsOf([learner]);
  }
});
