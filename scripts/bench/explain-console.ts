import path from "node:path";
import pg from "pg";
import { startEmbeddedDb } from "../lib/embedded-db";
import { DATA_DIR } from "../lib/database-url";

/**
 * EXPLAIN (ANALYZE, BUFFERS) of every statement the console's overview page runs, on a database the
 * console bench kept (BENCH_DATABASE=<name> BENCH_CONSOLE_REUSE=1 npm run bench -- --only=console).
 * Usage: BENCH_DATABASE=<name> BENCH_PG_PORT=<port> tsx scripts/bench/explain-console.ts
 */
const port = Number(process.env.BENCH_PG_PORT ?? 54360);
const database = process.env.BENCH_DATABASE!;
const server = await startEmbeddedDb({ dir: path.join(DATA_DIR, `pg-bench-${port}`), port, database, fast: true });
process.env.DATABASE_URL = server.url;
const db = new pg.Client({ connectionString: server.url });
await db.connect();
try {
  const { Prisma } = await import("../../server/generated/prisma/client");
  const { groupsSql, topLearnersSql, COST_DAYS } = await import("../../server/admin/costs");
  const { windowOf } = await import("../../server/jobs/quota");
  const at = new Date();
  const from = new Date(windowOf("day", at).start.getTime() - (COST_DAYS - 1) * 86_400_000);
  const folded = new Date(Math.floor((at.getTime() - 10 * 60_000) / 86_400_000) * 86_400_000);
  const statements: [string, InstanceType<typeof Prisma.Sql>][] = [
    ["costs: groups", groupsSql(from, at, folded)],
    ["costs: top learners", topLearnersSql(new Date(at.getTime() - 7 * 86_400_000), at, folded)],
  ];
  for (const extra of (process.env.EXPLAIN_SQL ?? "").split(";;").filter(Boolean))
    statements.push([extra.slice(0, 40), Prisma.sql([extra])]);
  for (const [name, sql] of statements) {
    await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, sql.values); // warm
    const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, sql.values);
    console.log(`\n=== ${name}\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
  }
} finally {
  await db.end();
  await server.stop();
}
