import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { getDb } from "@/server/db";
import { createLearner, createTestJob } from "../helpers/factories";
import { jobCountsSql, timeSeriesSql } from "@/server/observability/rollups";
import { recentSql } from "@/server/admin/runtimes";
import type { Prisma } from "@/server/generated/prisma/client";

/**
 * The console's live reads (the rollups plus the events past their watermark) while jobs are
 * moving: they must look those few events' jobs up by primary key. The watermark is a subquery,
 * so the planner cannot see how few they are; left to itself it hashed the whole job table to
 * join them (measured at a million jobs: 1.0–1.2 s per read instead of 8–17 ms). Each statement
 * is run as the app runs it and as a prepared statement twelve times (PostgreSQL may switch to a
 * generic plan after five), with EXPLAIN ANALYZE, so a scan that ran shows its rows.
 */
const JOBS = 200_000;
const MOVING = 50;
let client: pg.Client;

beforeAll(async () => {
  const db = getDb();
  const job = await createTestJob(await createLearner());
  await db.$executeRawUnsafe(`
    INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey", params, "runAfter", "createdAt", "updatedAt", "finishedAt", "lockedAt", "attemptNo")
    SELECT 'done_' || g, "userId", "jobType", "targetType", "targetId", "snapshotId", 'succeeded', "inputHash", 'done-' || g, params, "runAfter",
      now() - interval '3 days', now(), now() - interval '2 days', now() - interval '2 days', 1
    FROM "AiRuntimeJob", generate_series(1, ${JOBS}) g WHERE id = '${job.id}'`);
  // Their events, all folded (the watermark at the newest), then a few more past it: jobs moving.
  const events = (where: string, at: string, actor: string) =>
    db.$executeRawUnsafe(`
      INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
      SELECT id, 'locked', 'succeeded', 'runtime', '${actor}', 1, ${at} FROM "AiRuntimeJob" WHERE ${where}`);
  await events(`id LIKE 'done\\_%'`, `now() - interval '2 days'`, "rt-old");
  await db.$executeRawUnsafe(`
    INSERT INTO "ConsoleRollupState" (id, "eventId", "countedAt") SELECT 1, max(id), now() FROM "JobEvent"
    ON CONFLICT (id) DO UPDATE SET "eventId" = EXCLUDED."eventId", "countedAt" = EXCLUDED."countedAt"`);
  await events(
    `id IN (SELECT id FROM "AiRuntimeJob" WHERE id LIKE 'done\\_%' ORDER BY id LIMIT ${MOVING})`,
    "now()",
    "rt-now",
  );
  await db.$executeRawUnsafe(`ANALYZE "AiRuntimeJob"`);
  await db.$executeRawUnsafe(`ANALYZE "JobEvent"`);
  client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
}, 900_000); // a failure bound: 200,000 jobs and their events take 20–90 s to write on a loaded machine

afterAll(async () => {
  await client?.end();
});

/** Every plan the statement gets: as the app sends it, and prepared, twelve times. */
async function plans(name: string, sql: Prisma.Sql) {
  const texts = [(await client.query(`EXPLAIN ANALYZE ${sql.text}`, sql.values)).rows];
  await client.query(`PREPARE ${name} AS ${sql.text}`);
  const args = sql.values.map((v) => `'${v instanceof Date ? v.toISOString() : String(v)}'`).join(", ");
  for (let run = 1; run <= 12; run++)
    texts.push((await client.query(`EXPLAIN ANALYZE EXECUTE ${name}${args ? `(${args})` : ""}`)).rows);
  return texts.map((rows) => rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n"));
}

function expectJobsByKey(text: string) {
  const jobScans = text.split("\n").filter((l) => /Scan on "AiRuntimeJob/.test(l));
  for (const line of jobScans) if (/Seq Scan/.test(line)) expect(line, text).toMatch(/never executed/);
  expect(text).not.toMatch(/Hash Join[^\n]*\(actual/);
  // Partitioned tables (by time): each partition's copy of the primary key, "<partition>_pkey".
  expect(text).toMatch(/Index Scan using "AiRuntimeJob_\w+_pkey" on "AiRuntimeJob_\w+"[^\n]*loops=/);
  expect(text).toMatch(/Index Scan using "JobEvent_\w+_pkey" on "JobEvent_\w+"/);
}

describe("the console's live reads while jobs move", () => {
  it("counts by status and type, and the time series of every window, look the moving jobs up by key", async () => {
    const at = new Date();
    const statements: [string, Prisma.Sql][] = [
      ["counts", jobCountsSql()],
      ["series_1h", timeSeriesSql(1, 1, new Date(at.getTime() - 3_600_000), at)],
      ["series_24h", timeSeriesSql(30, 30, new Date(at.getTime() - 86_400_000), at)],
      ["series_7d", timeSeriesSql(360, 360, new Date(at.getTime() - 7 * 86_400_000), at)],
    ];
    for (const [name, sql] of statements)
      for (const [run, text] of (await plans(name, sql)).entries()) {
        expect(text, `${name}, run ${run}`).toMatch(/loops=/);
        expectJobsByKey(text);
        // The moving events were all read (the rows figure of the join is theirs).
        expect(text, `${name}, run ${run}`).toMatch(new RegExp(`Nested Loop[^\\n]*rows=${MOVING} loops=1`));
        // No parallel workers started for a branch that does not run (the count of the table
        // before the first recount): starting them cost every read 30–40 ms.
        expect(text, `${name}, run ${run}`).not.toMatch(/Workers Launched/);
      }
  });

  it("the Runtimes page reads the events past the watermark by key, not a day of the time index", async () => {
    for (const [run, text] of (await plans("recent", recentSql(new Date(Date.now() - 86_400_000)))).entries()) {
      expect(text, `run ${run}:\n${text}`).toMatch(
        new RegExp(`Index Scan using "JobEvent_\\w+_pkey" on "JobEvent_\\w+"[^\\n]*rows=${MOVING} loops=1`),
      );
    }
  });
});
