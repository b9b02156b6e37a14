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
  /** Runtimes that outlive this call (the caller closes them); else started and closed here. */
  pool?: Awaited<ReturnType<typeof workerPool>>;
};

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Ours (slots × 8 Runtime processes, each claiming up to its free slots and sending the results
 * that end together in one request) against pg-boss 12 in two modes, in alternating rounds on the
 * same PostgreSQL, `pairs` rounds of three after `warmup` untimed ones: ours, pg-boss 12
 * fetch(1) + complete (8 loops, one job a request), pg-boss 12 fetch(slots) + complete of those ids
 * (8 loops, the batch our Runtimes work in), ours, … Every round of ours follows a pg-boss round,
 * and the first pg-boss round of each triple follows one of ours (a round that follows its own
 * system's runs faster). On a shared machine whose speed shifts between minutes, a ratio taken
 * within one triple is what the systems had at the same time; the median of those ratios is the
 * figure to quote, for each mode: against fetch(1) it compares unlike batch sizes (ours claims up
 * to `slots` jobs a request), against fetch(slots) like ones. Each round starts settled.
 */
export async function pairedRounds(o: Opts) {
  const pool = o.pool ?? (await workerPool("slots", o.appUrl, o.key, 8, o.slots));
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
  const peer = (mode: "12-fetch" | "12-fetch-batch") =>
    pgBossRun(o.url, o.jobs, 8, o.roles, mode, o.slots, () => settle(o.db));
  const pairs = [];
  try {
    for (let r = -o.warmup; r < o.pairs; r++) {
      const us = await ours();
      const them = await peer("12-fetch");
      const batched = await peer("12-fetch-batch");
      if (r < 0) continue;
      const ourTotal = us.cpu.postgresMs + us.cpu.appMs + us.cpu.runtimesMs;
      pairs.push({
        ours: round(us.jobsPerSecond),
        pgBoss: round(them.jobsPerSecond),
        ratio: round(us.jobsPerSecond / them.jobsPerSecond),
        oursCpuPerJobMs: us.cpu,
        pgBossCpuPerJobMs: them.cpu,
        postgresRatio: round(us.cpu.postgresMs / them.cpu.postgresMs),
        totalCpuRatio: round(ourTotal / (them.cpu.postgresMs + them.cpu.benchMs)),
        pgBossBatch: round(batched.jobsPerSecond),
        batchRatio: round(us.jobsPerSecond / batched.jobsPerSecond),
        pgBossBatchCpuPerJobMs: batched.cpu,
        batchPostgresRatio: round(us.cpu.postgresMs / batched.cpu.postgresMs),
        batchTotalCpuRatio: round(ourTotal / (batched.cpu.postgresMs + batched.cpu.benchMs)),
        loadAverage: loadAverage(),
      });
    }
  } finally {
    if (!o.pool) await pool.close();
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
    medianBatchRatio: median(pairs.map((p) => p.batchRatio)),
    minBatchRatio: Math.min(...pairs.map((p) => p.batchRatio)),
    maxBatchRatio: Math.max(...pairs.map((p) => p.batchRatio)),
    medianBatchPostgresRatio: median(pairs.map((p) => p.batchPostgresRatio)),
    medianBatchTotalCpuRatio: median(pairs.map((p) => p.batchTotalCpuRatio)),
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
    `Ours (8 Runtime processes × ${p.slots} slots: claims of up to ${p.slots} jobs, the results that end together in one request), pg-boss 12.38.0 fetch(1) + complete (8 loops) and pg-boss 12.38.0 fetch(${p.slots}) + complete of the ${p.slots} ids (8 loops) in ${p.pairs.length} alternating rounds of three, ${p.jobs} jobs each, same PostgreSQL; CPU ms per job PostgreSQL / app / Runtimes (pg-boss: PostgreSQL / its client):`,
    ``,
    `| round | ours jobs/s | ours CPU | pg-boss fetch(1) jobs/s | its CPU | ratio | pg-boss fetch(${p.slots}) jobs/s | its CPU | ratio |`,
    `|---|---|---|---|---|---|---|---|---|`,
    ...p.pairs.map(
      (x, i) =>
        `| ${i + 1} | ${x.ours} | ${x.oursCpuPerJobMs.postgresMs} / ${x.oursCpuPerJobMs.appMs} / ${x.oursCpuPerJobMs.runtimesMs} | ${x.pgBoss} | ${x.pgBossCpuPerJobMs.postgresMs} / ${x.pgBossCpuPerJobMs.benchMs} | ${x.ratio} | ${x.pgBossBatch} | ${x.pgBossBatchCpuPerJobMs.postgresMs} / ${x.pgBossBatchCpuPerJobMs.benchMs} | ${x.batchRatio} |`,
    ),
    ``,
    `Against pg-boss 12 fetch(1) + complete (unlike batch sizes: ours up to ${p.slots} jobs a request): median ratio **${p.medianRatio}×** (range ${p.minRatio}–${p.maxRatio}), PostgreSQL CPU per job ${p.medianPostgresRatio}×, all CPU per job ${p.medianTotalCpuRatio}×.`,
    ``,
    `Against pg-boss 12 fetch(${p.slots}) + complete (equal batch size): median ratio **${p.medianBatchRatio}×** (range ${p.minBatchRatio}–${p.maxBatchRatio}), PostgreSQL CPU per job ${p.medianBatchPostgresRatio}×, all CPU per job ${p.medianBatchTotalCpuRatio}×.`,
  ];
}
