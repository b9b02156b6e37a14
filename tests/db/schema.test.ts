import { describe, expect, it } from "vitest";
import pg from "pg";
import { pendingSchemaChange } from "@/scripts/lib/migrator";
import { getDb } from "@/server/db";
import { createLearner, createTestJob } from "../helpers/factories";
import { claimSpec } from "@/server/jobs/lease";
import { candidates } from "@/server/jobs/state-machine";
import { now } from "@/server/clock";

async function shadowDatabases(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query("SELECT datname FROM pg_database WHERE datname LIKE 'prisma_shadow_%'");
  await client.end();
  return rows.map((r) => r.datname as string);
}

describe("schema and migrations", () => {
  it("prisma/schema.prisma and prisma/migrations agree (no drift), and no shadow database is left behind", async () => {
    const url = process.env.DATABASE_URL!;
    const before = await shadowDatabases(url);
    const sql = await pendingSchemaChange(url);
    expect(sql, `schema.prisma differs from the migrations; run npm run db:migrate:create -- <name>\n${sql}`).toBe("");
    expect(await shadowDatabases(url)).toEqual(before);
  }, 120_000);

  it("claim uses the partial pending-queue index, not a scan, with a parameterised shape and many finished rows", async () => {
    const db = getDb();
    const learner = await createLearner();
    const job = await createTestJob(learner);
    // A queue as the hot path sees it: 30k finished rows and 3k pending ones waiting in order
    // (with a handful pending, any index is fast and the planner may pick another), then fresh statistics.
    await db.$executeRaw`
      INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey", params, "runAfter", "createdAt", "updatedAt", "finishedAt")
      SELECT 'done_' || g || '_' || ${job.id}, "userId", "jobType", "targetType", "targetId", "snapshotId", 'succeeded', "inputHash", 'done-' || g, params, "runAfter", "createdAt", "updatedAt", now()
      FROM "AiRuntimeJob", generate_series(1, 30000) g WHERE id = ${job.id}`;
    await db.$executeRaw`
      INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey", params, "runAfter", "createdAt", "updatedAt")
      SELECT 'queued_' || g || '_' || ${job.id}, "userId", "jobType", "targetType", "targetId", "snapshotId", 'pending', "inputHash", 'queued-' || g, params, "runAfter", "createdAt" + g * interval '1 millisecond', "updatedAt"
      FROM "AiRuntimeJob", generate_series(1, 3000) g WHERE id = ${job.id}`;
    await db.$executeRawUnsafe(`ANALYZE "AiRuntimeJob"`);
    // The claim's own candidate query as server/sql.ts runs it: a named prepared statement, executed
    // many times (PostgreSQL may switch a prepared statement to a generic plan after five runs; for the
    // claim it must not, since a generic plan cannot know `runAfter <= now` and would sort every pending job).
    const spec = claimSpec(
      { runtimeInstanceId: "rt", capabilities: ["learning_state_analysis", "quiz_generation"], limit: 10 },
      now(),
    );
    const query = candidates(spec);
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(`PREPARE claim_candidates AS ${query.text}`);
      const args = query.values.map((v) => `'${v instanceof Date ? v.toISOString() : String(v)}'`).join(", ");
      for (let run = 1; run <= 12; run++) {
        const plan = await client.query(`EXPLAIN EXECUTE claim_candidates(${args})`);
        const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
        expect(text, `run ${run}:\n${text}`).toMatch(
          /(Index Scan using|Bitmap Index Scan on) "AiRuntimeJob_pending_queue_idx"/,
        );
        expect(text, `run ${run}`).not.toMatch(/Seq Scan|Sort/);
      }
    } finally {
      await client.end();
    }
    await db.$executeRaw`DELETE FROM "AiRuntimeJob" WHERE id LIKE ${`done_%_${job.id}`}`;
  }, 120_000);
});
