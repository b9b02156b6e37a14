import path from "node:path";
import pg from "pg";
import { startEmbeddedDb } from "../lib/embedded-db";
import { DATA_DIR } from "../lib/database-url";
import { deployMigrations } from "../lib/migrator";

/**
 * The console's Learners page at 10,000 learners (BENCH_LEARNERS): a fresh embedded database is
 * migrated and seeded in SQL — each learner with 20 review cards (a third due, some overdue, some
 * rated Again), 3 jobs and their usage this month — then the page's query (listLearners with its
 * per-learner figures and per-point mastery, 25 a page) is timed: first page, a middle page, a
 * search, and pages sorted by a figure over every learner with filters (language, "has overdue
 * cards"), each the median of 7 runs after a warm-up. Figures depend on the machine (shared here).
 * Usage: BENCH_PG_PORT=<port> tsx scripts/bench/learners-page.ts
 */
const port = Number(process.env.BENCH_PG_PORT ?? 54360);
const learners = Number(process.env.BENCH_LEARNERS ?? 10_000);
const server = await startEmbeddedDb({
  dir: path.join(DATA_DIR, `pg-bench-learners-${port}`),
  port,
  database: `learners_${Date.now()}`,
  fast: true,
});
process.env.DATABASE_URL = server.url;
const db = new pg.Client({ connectionString: server.url });
try {
  await deployMigrations(server.url);
  await db.connect();
  const seeded = Date.now();
  await db.query(
    `INSERT INTO "User" (id, email, name, locale, "createdAt", "updatedAt")
    SELECT 'u' || g, 'learner' || g || '@bench.test', 'Learner ' || g, CASE WHEN g % 2 = 0 THEN 'zh-CN' ELSE 'en' END,
           now() - (g || ' minutes')::interval, now() FROM generate_series(1, $1) g`,
    [learners],
  );
  await db.query(
    `INSERT INTO "Material" (id, "userId", title, content, "createdAt")
    SELECT 'm' || g, 'u' || g, 'Material', 'text', now() FROM generate_series(1, $1) g`,
    [learners],
  );
  await db.query(
    `INSERT INTO "KnowledgePoint" (id, "userId", "materialId", title, description, "createdAt")
    SELECT 'k' || g || '_' || p, 'u' || g, 'm' || g, 'Point ' || p, '', now()
    FROM generate_series(1, $1) g, generate_series(1, 4) p`,
    [learners],
  );
  await db.query(
    `INSERT INTO "ReviewCard" (id, "userId", kind, "knowledgePointId", front, back, due, reps, state, "createdAt")
    SELECT 'c' || g || '_' || c, 'u' || g, 'flashcard', 'k' || g || '_' || (c % 4 + 1), 'Front ' || c, 'Back',
           now() + ((c % 3 - 1) * 2 || ' days')::interval, 1, 2, now()
    FROM generate_series(1, $1) g, generate_series(1, 20) c`,
    [learners],
  );
  await db.query(
    `INSERT INTO "ReviewLog" (id, "userId", "cardId", rating, state, "reviewedAt", stability, difficulty, "scheduledDays", due)
    SELECT 'l' || g || '_' || c, 'u' || g, 'c' || g || '_' || c, CASE WHEN c % 7 = 0 THEN 1 ELSE 3 END, 0,
           now() - '3 days'::interval, 1, 5, 1, now()
    FROM generate_series(1, $1) g, generate_series(1, 20) c`,
    [learners],
  );
  await db.query(
    `INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", status, "createdAt", "updatedAt", "runAfter", "inputHash")
    SELECT 'j' || g || '_' || n, 'u' || g, 'flashcard_generation', 'user', 'u' || g, 'succeeded', now() - (n || ' hours')::interval, now(), now(), 'h'
    FROM generate_series(1, $1) g, generate_series(1, 3) n`,
    [learners],
  );
  await db.query(
    `INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", provider, "promptTokens", "completionTokens", outcome, "createdAt")
    SELECT 'x' || g || '_' || n, 'j' || g || '_' || n, 1, 'u' || g, 'flashcard_generation', 'platform_key', 'deepseek', 1000, 200, 'succeeded', now() - (n || ' hours')::interval
    FROM generate_series(1, $1) g, generate_series(1, 3) n`,
    [learners],
  );
  await db.query("ANALYZE");
  console.log(
    `seeded ${learners} learners (20 cards, 20 reviews, 3 jobs each) in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
  );

  const { listLearners } = await import("../../server/account/learners");
  const time = async (name: string, run: () => Promise<unknown>) => {
    await run();
    const ms: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      await run();
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    console.log(`${name}: median ${ms[3]!.toFixed(1)} ms (min ${ms[0]!.toFixed(1)}, max ${ms[6]!.toFixed(1)})`);
  };
  await time("first page (25)", () => listLearners({ page: 1, pageSize: 25 }));
  await time("page 200 (25)", () => listLearners({ page: 200, pageSize: 25 }));
  await time("search 'learner123'", () => listLearners({ search: "learner123", page: 1, pageSize: 25 }));
  await time("sorted by overdue, 简体中文 with overdue cards (25)", () =>
    listLearners({ page: 1, pageSize: 25, sort: "overdue", language: "zh-CN", overdue: true }),
  );
  await time("sorted by cost, fewest first, page 40 (25)", () =>
    listLearners({ page: 40, pageSize: 25, sort: "cost", dir: "asc" }),
  );
  const { closeDb } = await import("../../server/db");
  await closeDb();
} finally {
  await db.end().catch(() => {});
  await server.stop();
}
