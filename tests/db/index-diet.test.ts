import { expect, it } from "vitest";
import pg from "pg";
import { createLearner, createTestJob } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";

/**
 * A status change is never a HOT update: PostgreSQL writes the new row version into every index
 * whose predicate it matches. The mostly-null columns' indexes are partial (`IS NOT NULL`), the
 * idempotency unique is partial and doubles as the search-by-key index, and status + jobType is
 * served by (status, createdAt, id), and the params GIN skips empty params (the analyses' are always
 * empty) — so a claimed, keyless, unfinished analysis's version enters 8 indexes, not 15. Read from the catalog (which predicates the version matches) and from
 * PostgreSQL's own WAL counter for the very UPDATE (EXPLAIN ANALYZE, WAL), rolled back.
 */
const CLAIMED_VERSION_ENTERS = [
  "AiRuntimeJob_createdAt_id_idx",
  "AiRuntimeJob_inflight_input_idx",
  "AiRuntimeJob_jobType_createdAt_id_idx",
  "AiRuntimeJob_lease_idx",
  "AiRuntimeJob_pkey",
  "AiRuntimeJob_status_createdAt_id_idx",
  "AiRuntimeJob_targetType_targetId_idx",
  "AiRuntimeJob_userId_createdAt_idx",
];

it("claiming a keyless analysis writes its new version into 8 indexes, skipping the partial ones", async () => {
  const learner = await createLearner();
  const job = await createTestJob(learner, "learning_state_analysis", { idempotencyKey: null });
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    await db.query("BEGIN");
    const [plan] = (
      await db.query(
        `EXPLAIN (ANALYZE, WAL, FORMAT JSON) UPDATE "AiRuntimeJob" SET status = 'locked', "attemptNo" = 1,
           "lockedBy" = 'diet', "lockedAt" = now(), "lockUntil" = now() + interval '1 minute' WHERE id = $1`,
        [job.id],
      )
    ).rows[0]["QUERY PLAN"];
    const indexes = (
      await db.query(`SELECT c.relname AS name, pg_get_expr(i.indpred, i.indrelid) AS pred
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = '"AiRuntimeJob"'::regclass ORDER BY 1`)
    ).rows as { name: string; pred: string | null }[];
    const entered: string[] = [];
    for (const ix of indexes) {
      if (!ix.pred) entered.push(ix.name);
      else if ((await db.query(`SELECT (${ix.pred}) AS m FROM "AiRuntimeJob" WHERE id = $1`, [job.id])).rows[0].m)
        entered.push(ix.name);
    }
    await db.query("ROLLBACK");
    expect(entered).toEqual(CLAIMED_VERSION_ENTERS);
    // A keyed job's version also enters the idempotency index, and nothing else.
    const keyed = await createTestJob(learner);
    const keyedPred = indexes.find((i) => i.name === "AiRuntimeJob_idempotency_idx")!.pred!;
    expect((await db.query(`SELECT (${keyedPred}) AS m FROM "AiRuntimeJob" WHERE id = $1`, [keyed.id])).rows[0].m).toBe(
      true,
    );
    // One heap record plus one per index entered: 9 or 10.
    const records = plan.Plan["WAL Records"] as number;
    console.log(`[index-diet] claim of a keyless job: ${records} WAL records`);
    expect(records).toBeGreaterThanOrEqual(1 + CLAIMED_VERSION_ENTERS.length);
    expect(records).toBeLessThanOrEqual(2 + CLAIMED_VERSION_ENTERS.length);
  } finally {
    await db.query("ROLLBACK").catch(() => {});
    await db.end();
    await releaseJobsOf([learner]);
  }
});
