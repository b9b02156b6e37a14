import path from "node:path";
import pg from "pg";
import { startEmbeddedDb } from "../lib/embedded-db";
import { DATA_DIR } from "../lib/database-url";

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the console's heavier statements at a million jobs: the cost
 * panel's, the explorer's "failed, one type", the Runtimes page's last 24 h and the 7d overview's
 * time series, and the counts by status and type (each also as its generic plan, which a prepared
 * statement may switch to), plus any EXPLAIN_SQL (";;"-separated). With EXPLAIN_GENERATE=1 an
 * empty database is migrated and filled as the console bench fills it (BENCH_CONSOLE_ROWS, default
 * 1,000,000) and kept; with EXPLAIN_PAST=N, N events lie past the rollups' watermark while it
 * explains (as while jobs move; removed after).
 * Usage: BENCH_DATABASE=<name> BENCH_PG_PORT=<port> [EXPLAIN_GENERATE=1] [EXPLAIN_PAST=200] tsx scripts/bench/explain-console.ts
 */
const port = Number(process.env.BENCH_PG_PORT ?? 54360);
const database = process.env.BENCH_DATABASE!;
const server = await startEmbeddedDb({ dir: path.join(DATA_DIR, `pg-bench-${port}`), port, database, fast: true });
process.env.DATABASE_URL = server.url;
const db = new pg.Client({ connectionString: server.url });
await db.connect();
try {
  if (process.env.EXPLAIN_GENERATE === "1") await fill(db, server.url);
  const { Prisma } = await import("../../server/generated/prisma/client");
  const { groupsSql, topLearnersSql, COST_DAYS } = await import("../../server/admin/costs");
  const { windowOf } = await import("../../server/jobs/quota");
  const at = new Date();
  const from = new Date(windowOf("day", at).start.getTime() - (COST_DAYS - 1) * 86_400_000);
  const folded = new Date(Math.floor((at.getTime() - 10 * 60_000) / 86_400_000) * 86_400_000);
  const { explorerQuery } = await import("../../server/admin/explorer");
  const { recentSql } = await import("../../server/admin/runtimes");
  const { jobCountsSql, timeSeriesSql } = await import("../../server/observability/rollups");
  const week = new Date(Math.floor((at.getTime() - 7 * 86_400_000) / 21_600_000) * 21_600_000);
  const statements: [string, InstanceType<typeof Prisma.Sql>][] = [
    ["costs: groups", groupsSql(from, at, folded)],
    ["costs: top learners", topLearnersSql(new Date(at.getTime() - 7 * 86_400_000), at, folded)],
    [
      "explorer: failed, one type",
      await explorerQuery({
        filter: { status: ["failed"], jobType: ["quiz_generation"] },
        sort: "createdAt_desc",
        limit: 50,
      } as Parameters<typeof explorerQuery>[0]),
    ],
    ["Runtimes: last 24 h", recentSql(new Date(at.getTime() - 86_400_000))],
    ["overview 7d: time series", timeSeriesSql(360, 360, week, at)],
    ["overview: counts by status and type", jobCountsSql()],
  ];
  // EXPLAIN_PAST=N: N events past the watermark while explaining, as while jobs are moving (removed after).
  const past = Number(process.env.EXPLAIN_PAST ?? 0);
  if (past)
    await db.query(`INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
      SELECT id, 'locked', 'succeeded', 'runtime', 'bench-rt-0', 1, now() FROM "AiRuntimeJob" WHERE "inputHash" = 'h' ORDER BY id LIMIT ${past}`);
  for (const extra of (process.env.EXPLAIN_SQL ?? "").split(";;").filter(Boolean))
    statements.push([extra.slice(0, 40), Prisma.sql([extra])]);
  for (const [name, sql] of statements) {
    await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, sql.values); // warm
    const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, sql.values);
    console.log(`\n=== ${name}\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
    if (!sql.values.length) continue;
    const generic = await db.query(`EXPLAIN (GENERIC_PLAN) ${sql.text}`);
    console.log(`--- generic plan\n${generic.rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
  }
  if (past)
    await db.query(
      `DELETE FROM "JobEvent" WHERE "createdAt" >= now() - interval '1 hour' AND "actorId" = 'bench-rt-0' AND "fromStatus" = 'locked' AND "toStatus" = 'succeeded' AND id > (SELECT "eventId" FROM "ConsoleRollupState")`,
    );
} finally {
  await db.end();
  await server.stop();
}

/** Migrates an empty bench database and fills it as the console bench does, then analyses it. */
async function fill(db: pg.Client, url: string) {
  const { deployMigrations } = await import("../lib/migrator");
  await deployMigrations(url);
  const rows = Number(process.env.BENCH_CONSOLE_ROWS ?? 1_000_000);
  const have = (await db.query(`SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE "inputHash" = 'h'`)).rows[0].n;
  if (have === rows) return;
  const { seed } = await import("../../prisma/seed");
  const { LEARNERS } = await import("../../prisma/seed-data");
  const { generate } = await import("./console");
  const { advanceRollups } = await import("../../server/observability/rollups");
  await seed();
  await generate(db, rows, LEARNERS[0]!.id);
  for (const t of ["AiRuntimeJob", "JobEvent", "JobUsage"]) await db.query(`VACUUM ANALYZE "${t}"`);
  const max = BigInt((await db.query(`SELECT max(id)::text AS m FROM "JobEvent"`)).rows[0].m);
  for (let r = await advanceRollups({ recount: true }); BigInt(r.eventId) < max; r = await advanceRollups())
    await new Promise((res) => setTimeout(res, 100));
}
