import { describe, expect, it } from "vitest";
import pg from "pg";
import { pendingSchemaChange } from "@/scripts/lib/migrator";
import { getDb } from "@/server/db";
import { createLearner, createTestJob } from "../helpers/factories";
import { claimSpec, claimStatement, lostLeasesSpec } from "@/server/jobs/lease";
import { candidates } from "@/server/jobs/state-machine";
import { now } from "@/server/clock";

async function shadowDatabases(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query("SELECT datname FROM pg_database WHERE datname LIKE 'prisma_shadow_%'");
  await client.end();
  return rows.map((r) => r.datname as string);
}

/**
 * The job table is partitioned (by time). The rows below have ids no span holds, so they sit in its
 * `_default` partition, and a claim there names that partition (server/jobs/job-partition.ts), as
 * it names the one live partition on a running instance. The queue's order and lease check times
 * are indexed on JobQueue (one row per job in flight, written by the job table's insert trigger):
 * a claim reads its pending and lease indexes and each job row by the partition's primary key.
 */
const PART = "AiRuntimeJob_default";
const QUEUE_IDX = `"JobQueue_pending_idx"`;
const LEASE_IDX = `"JobQueue_lease_idx"`;
const JOB_PKEY = `"${PART}_pkey"`;

describe("schema and migrations", () => {
  it("prisma/schema.prisma and prisma/migrations agree (no drift), and no shadow database is left behind", async () => {
    const url = process.env.DATABASE_URL!;
    const before = await shadowDatabases(url);
    const sql = await pendingSchemaChange(url);
    expect(sql, `schema.prisma differs from the migrations; run npm run db:migrate:create -- <name>\n${sql}`).toBe("");
    expect(await shadowDatabases(url)).toEqual(before);
  }, 120_000);

  it("claim uses the partial queue and lease indexes, never a scan or a sort of jobs, at a million rows", async () => {
    const db = getDb();
    const learner = await createLearner();
    const job = await createTestJob(learner);
    // A queue as the hot path sees it after months: a million finished rows (in the job table's
    // default partition, by their ids; the spans of this fresh database hold this file's few jobs), 3k pending ones
    // waiting in order, 2k in flight (a few long-running ones locked minutes ago, leases alive),
    // then fresh statistics. With a handful of rows any index is fast and the planner may pick another.
    const copy = (prefix: string, n: number, status: string, extra: string) =>
      db.$executeRawUnsafe(`
      INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey", params, "runAfter", "createdAt", "updatedAt", "finishedAt", "lockedBy", "lockedAt", "lockUntil", "leaseCheckAt", "attemptNo")
      SELECT '${prefix}_' || g || '_' || id, "userId", "jobType", "targetType", "targetId", "snapshotId", '${status}', "inputHash", '${prefix}-' || g, params, "runAfter",
        "createdAt" + g * interval '1 millisecond', "updatedAt", ${extra}
      FROM "AiRuntimeJob", generate_series(1, ${n}) g WHERE id = '${job.id}'`);
    await copy("done", 1_000_000, "succeeded", `now(), NULL, NULL, NULL, NULL, 1`);
    await copy("queued", 3_000, "pending", `NULL, NULL, NULL, NULL, NULL, 0`);
    await copy(
      "held",
      2_000,
      "running",
      // Heartbeating on time: each lease ends in a minute, its check time at least half a lease ahead.
      `NULL, 'rt', now() - (g % 300) * interval '1 second', now() + interval '1 minute', now() + interval '30 seconds' + (g % 30) * interval '1 second', 1`,
    );
    await db.$executeRawUnsafe(`ANALYZE "AiRuntimeJob"`);
    await db.$executeRawUnsafe(`ANALYZE "JobQueue"`);
    // The insert trigger gave each job in flight its queue row, and no finished one any.
    expect(
      await db.$queryRawUnsafe(
        `SELECT status::text, count(*)::int AS n FROM "JobQueue" WHERE "jobId" LIKE 'queued\\_%' OR "jobId" LIKE 'held\\_%' OR "jobId" LIKE 'done\\_%' GROUP BY 1 ORDER BY 1`,
      ),
    ).toEqual([
      { status: "pending", n: 3_000 },
      { status: "running", n: 2_000 },
    ]);
    // The claim's own statement as server/sql.ts runs it: a named prepared statement, executed
    // many times, on a connection of the claim pool (generic plans from the first run: server/db.ts)
    // and, as before, in PostgreSQL's default mode (custom plans for five runs, then maybe generic).
    // Either way the plan must take the index paths: a plan that cannot see `runAfter <= now` must
    // still not sort every pending job.
    const input = {
      runtimeInstanceId: "rt",
      capabilities: ["learning_state_analysis", "quiz_generation"] as const,
      limit: 10,
    };
    const at = now();
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    const literal = (v: unknown) => `'${v instanceof Date ? v.toISOString() : String(v)}'`;
    /** The statement with its values written in, for EXPLAIN ANALYZE. */
    const inline = (query: { text: string; values: unknown[] }) =>
      query.text.replace(/\$(\d+)/g, (_, i: string) => literal(query.values[Number(i) - 1]));
    const plans = async (name: string, query: { text: string; values: unknown[] }) => {
      await client.query(`PREPARE ${name} AS ${query.text}`);
      const args = query.values.map(literal).join(", ");
      const texts: string[] = [];
      for (let run = 1; run <= 12; run++)
        texts.push(
          (await client.query(`EXPLAIN EXECUTE ${name}(${args})`)).rows.map((r) => r["QUERY PLAN"]).join("\n"),
        );
      return texts;
    };
    try {
      for (const mode of ["force_generic_plan", "auto"]) {
        await client.query(`DEALLOCATE ALL`);
        await client.query(`SET plan_cache_mode = ${mode}`);
        for (const [run, text] of (
          await plans(
            "claim_candidates",
            candidates({ ...claimSpec({ ...input, capabilities: [...input.capabilities] }, at), table: PART }),
          )
        ).entries()) {
          expect(text, `run ${run}:\n${text}`).toMatch(
            new RegExp(`(Index Scan using|Bitmap Index Scan on) ${QUEUE_IDX}`),
          );
          expect(text, `run ${run}:\n${text}`).toMatch(new RegExp(`Index Scan using ${JOB_PKEY}`));
          expect(text, `run ${run}`).not.toMatch(/Seq Scan|Sort/);
          // The types are checked inside the index (its last key), not on each job's row.
          expect(text, `run ${run}:\n${text}`).toMatch(/Index Cond: .*"jobType"/);
        }
        // The passed-lease check the claim now carries: a range of the queue's lease index up to now
        // (leaseCheckAt bound) — no scan of the in-flight rows. With a custom plan it is read in index
        // order; a generic plan may read the range by bitmap and sort it, which is the due leases
        // only (a lease on time is never due), not the leases held.
        for (const [run, text] of (
          await plans("lost_candidates", candidates({ ...lostLeasesSpec(at, 10, "claim"), table: PART }))
        ).entries()) {
          expect(text, `run ${run}:\n${text}`).toMatch(
            mode === "auto"
              ? new RegExp(`Index Scan using ${LEASE_IDX}`)
              : new RegExp(`(Index Scan using|Bitmap Index Scan on) ${LEASE_IDX}`),
          );
          expect(text, `run ${run}:\n${text}`).toMatch(/Index Cond: \("leaseCheckAt" < /);
          expect(text, `run ${run}`).not.toMatch(mode === "auto" ? /Seq Scan|Sort/ : /Seq Scan/);
        }
      }
      // Run, it reads none of the 2,000 leases held on time, however long ago they were taken (it
      // used to walk every lease older than the shortest one and drop each by its lockUntil).
      await client.query("BEGIN");
      const lost = candidates({ ...lostLeasesSpec(at, 10, "claim"), table: PART });
      const analyzed = (await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${inline(lost)}`)).rows
        .map((r) => r["QUERY PLAN"])
        .join("\n");
      await client.query("ROLLBACK");
      expect(analyzed).toMatch(
        new RegExp(`(Index Scan using|Bitmap Index Scan on) ${LEASE_IDX}.*actual time=\\S+ rows=0 `),
      );
      expect(analyzed).not.toMatch(/Rows Removed by Filter/);
      // A claim for a type with nothing pending, behind the 3,000 pending jobs of other types, reads
      // none of their rows (its generic plan used to fetch each one to see its type).
      const other = candidates({ ...claimSpec({ ...input, capabilities: ["weak_point_analysis"] }, at), table: PART });
      for (const mode of ["force_generic_plan", "auto"]) {
        await client.query(`DEALLOCATE ALL`);
        await client.query(`SET plan_cache_mode = ${mode}`);
        await client.query(`PREPARE other AS ${other.text}`);
        await client.query("BEGIN");
        const text = (
          await client.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE other(${other.values.map(literal).join(", ")})`)
        ).rows
          .map((r) => r["QUERY PLAN"])
          .join("\n");
        await client.query("ROLLBACK");
        // (A custom plan may know there are none of that type and ask the type's own index instead.)
        if (mode === "force_generic_plan")
          expect(text, text).toMatch(new RegExp(`${QUEUE_IDX}.*actual time=\\S+ rows=0 `));
        expect(text, text).not.toMatch(/Rows Removed by Filter|Seq Scan/);
      }
      // The whole statement: both index paths, no scan of the job table; its sorts order the events it
      // writes and, in a generic plan, the due leases (above).
      for (const mode of ["force_generic_plan", "auto"]) {
        await client.query(`DEALLOCATE ALL`);
        await client.query(`SET plan_cache_mode = ${mode}`);
        for (const [run, text] of (
          await plans("claim_statement", claimStatement({ ...input, capabilities: [...input.capabilities] }, at, PART))
        ).entries()) {
          expect(text, `run ${run}:\n${text}`).toMatch(new RegExp(QUEUE_IDX));
          expect(text, `run ${run}:\n${text}`).toMatch(new RegExp(LEASE_IDX));
          expect(text, `run ${run}`).not.toMatch(/Seq Scan on "AiRuntimeJob/);
          const sortKeys = text.split("\n").filter((l) => /Sort Key/.test(l));
          expect(
            sortKeys.every(
              (l) =>
                /Sort Key: u(_\d+)?\.id\b/.test(l) ||
                (mode === "force_generic_plan" && /Sort Key: q(_\d+)?\."leaseCheckAt"$/.test(l.trim())),
            ),
            sortKeys.join("\n"),
          ).toBe(true);
        }
      }
    } finally {
      // On this test's own connection: no app statement timeout for a million rows' cascades.
      await client.query("ROLLBACK").catch(() => {});
      await client.query(
        `DELETE FROM "AiRuntimeJob" WHERE id LIKE 'done\\_%' OR id LIKE 'queued\\_%' OR id LIKE 'held\\_%'`,
      );
      await client.end();
    }
  }, 900_000); // a failure bound: the million rows take 1–5 minutes to write, longer on a loaded machine
});
