import type pg from "pg";
import { clearJobs, insertJobs } from "./setup";
import { cpuNow, cpuSince, loadAverage, perJob } from "./cpu";
import { pgBossRun } from "./pgboss";
import { median } from "./stats";
import { workerPool } from "./workers";

type Opts = {
  db: pg.Client;
  /** The database both systems use. */
  url: string;
  appUrl: string;
  key: string;
  roles: { postmaster: number; appGroup?: number };
  jobs: number;
  slots: number;
  pairs: number;
  warmup: number;
};

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Ours (slots × 8 Runtime processes, results sent together) and pg-boss 12 fetch(1) + complete
 * (8 loops) in alternating rounds on the same PostgreSQL, `pairs` pairs after `warmup` untimed
 * ones: ours, pg-boss, ours, pg-boss…, so every round follows one of the other system's (a round
 * that follows one of its own system's runs faster: with the order swapped in every other pair,
 * the ratio was 1.05–1.34× with ours first and 0.92–1.05× with pg-boss first). On a shared machine
 * whose speed shifts between minutes (pg-boss alone ran at 1,030–1,470 jobs/s on the same day), a
 * ratio taken within a pair is what both systems had at the same time; the median of the ratios
 * is the figure to quote. Each round starts settled (no vacuum due from the round before).
 */
export async function pairedRounds(o: Opts) {
  const pool = await workerPool("slots", o.appUrl, o.key, 8, o.slots);
  const ours = async () => {
    await clearJobs(o.db);
    await insertJobs(o.db, o.jobs);
    await settle(o.db);
    const cpu0 = cpuNow(o.roles);
    const { outs, elapsed } = await pool.run();
    const cpu = cpuSince(cpu0, o.roles);
    const done = outs.reduce((n, w) => n + w.done, 0);
    if (done !== o.jobs) throw new Error(`paired: ${done} of ${o.jobs} jobs done`);
    const runtimes = outs.reduce((t, w) => t + w.cpuMs, 0);
    return { jobsPerSecond: (done / elapsed) * 1000, cpu: perJob({ ...cpu, runtimes }, o.jobs) };
  };
  const peer = () => pgBossRun(o.url, o.jobs, 8, o.roles, "12-fetch", 50, () => settle(o.db));
  const pairs = [];
  try {
    for (let r = -o.warmup; r < o.pairs; r++) {
      const us = await ours();
      const them = await peer();
      if (r < 0) continue;
      pairs.push({
        ours: round(us.jobsPerSecond),
        pgBoss: round(them.jobsPerSecond),
        ratio: round(us.jobsPerSecond / them.jobsPerSecond),
        oursCpuPerJobMs: us.cpu,
        pgBossCpuPerJobMs: them.cpu,
        postgresRatio: round(us.cpu.postgresMs / them.cpu.postgresMs),
        totalCpuRatio: round(
          (us.cpu.postgresMs + us.cpu.appMs + us.cpu.runtimesMs) / (them.cpu.postgresMs + them.cpu.benchMs),
        ),
        loadAverage: loadAverage(),
      });
    }
  } finally {
    await pool.close();
  }
  const ratios = pairs.map((p) => p.ratio);
  return {
    jobs: o.jobs,
    slots: o.slots,
    pairs,
    medianRatio: median(ratios),
    minRatio: Math.min(...ratios),
    maxRatio: Math.max(...ratios),
    medianPostgresRatio: median(pairs.map((p) => p.postgresRatio)),
    medianTotalCpuRatio: median(pairs.map((p) => p.totalCpuRatio)),
  };
}

/**
 * Before a round: the vacuum that the rounds before left due is done now (untimed), and no
 * autovacuum worker is still at work, so a round's PostgreSQL CPU is its own, not its
 * predecessor's (the other system's, in alternating rounds). pg-boss's table is vacuumed here
 * too, so its fresh rows are also read with their visibility known.
 */
async function settle(db: pg.Client) {
  await db.query("VACUUM (ANALYZE)");
  for (let i = 0; i < 300; i++) {
    const r = await db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`,
    );
    if (r.rows[0].n === 0) return;
    await new Promise((f) => setTimeout(f, 100));
  }
}

export function pairedMarkdown(p: Awaited<ReturnType<typeof pairedRounds>>): string[] {
  return [
    ``,
    `Ours (8 Runtime processes × ${p.slots} slots, results sent together) and pg-boss 12.38.0 fetch(1) + complete (8 loops) in ${p.pairs.length} alternating pairs of rounds, ${p.jobs} jobs each, same PostgreSQL; CPU ms per job PostgreSQL / app / Runtimes (pg-boss: PostgreSQL / its client):`,
    ``,
    `| pair | ours jobs/s | pg-boss jobs/s | ratio | ours CPU | pg-boss CPU | PostgreSQL ratio | total CPU ratio |`,
    `|---|---|---|---|---|---|---|---|`,
    ...p.pairs.map(
      (x, i) =>
        `| ${i + 1} | ${x.ours} | ${x.pgBoss} | ${x.ratio} | ${x.oursCpuPerJobMs.postgresMs} / ${x.oursCpuPerJobMs.appMs} / ${x.oursCpuPerJobMs.runtimesMs} | ${x.pgBossCpuPerJobMs.postgresMs} / ${x.pgBossCpuPerJobMs.benchMs} | ${x.postgresRatio} | ${x.totalCpuRatio} |`,
    ),
    ``,
    `Median ratio within a pair **${p.medianRatio}×** (range ${p.minRatio}–${p.maxRatio}); PostgreSQL CPU per job ${p.medianPostgresRatio}× pg-boss's, all CPU per job ${p.medianTotalCpuRatio}×.`,
  ];
}
