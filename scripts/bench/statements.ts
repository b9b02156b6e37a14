import type pg from "pg";

/**
 * BENCH_STATEMENTS=N: where PostgreSQL's time goes, per statement (pg_stat_statements). Needs
 * BENCH_PG_SETTINGS="shared_preload_libraries=pg_stat_statements,pg_stat_statements.track_planning=on".
 */
export const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 0);

export async function resetStatements(db: pg.Client | pg.Pool) {
  if (!STATEMENTS) return;
  await db.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  await db.query("SELECT pg_stat_statements_reset()");
}

/** The top statements by planning + execution time, in µs per job. */
export async function topStatements(db: pg.Client | pg.Pool, jobs: number) {
  if (!STATEMENTS) return [];
  const { rows } = await db.query<{ calls: string; plans: string; plan: number; exec: number; query: string }>(
    `SELECT calls, plans, total_plan_time AS plan, total_exec_time AS exec, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
     FROM pg_stat_statements ORDER BY total_plan_time + total_exec_time DESC LIMIT $1`,
    [STATEMENTS],
  );
  return rows.map((r) => ({
    callsPerJob: Math.round((Number(r.calls) / jobs) * 100) / 100,
    plansPerCall: Math.round((Number(r.plans) / Number(r.calls)) * 100) / 100,
    planUsPerJob: Math.round((r.plan * 1000) / jobs),
    execUsPerJob: Math.round((r.exec * 1000) / jobs),
    query: r.query,
  }));
}
