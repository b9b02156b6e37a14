import path from "node:path";
import pg from "pg";
import { output, usage } from "./payload";
import { startEmbeddedDb, dropDatabase } from "../lib/embedded-db";
import { deployMigrations } from "../lib/migrator";
import { DATA_DIR } from "../lib/database-url";
import { clearJobs, insertJobs, runSetupSql, seedBenchUser } from "./setup";
import { cpuNow, cpuSince, loadAverage, postmasterPid } from "./cpu";

/**
 * `npm run bench:wal`: PostgreSQL's own work per claim → heartbeat → result cycle, without HTTP:
 * one client calls the domain functions (the same code the Runtime API runs) for BENCH_WAL_JOBS
 * jobs, and the probe reads WAL records and bytes (pg_stat_wal) and PostgreSQL's CPU (/proc)
 * per cycle, then the same for a sweep of BENCH_WAL_SWEEP expired leases. One client and no
 * other traffic on its own server, so the figures are the cost of the statements, not of a queue.
 * Port: BENCH_WAL_PG_PORT (default BENCH_PG_PORT + 1).
 */
const JOBS = Number(process.env.BENCH_WAL_JOBS ?? 2000);
const SWEEP = Number(process.env.BENCH_WAL_SWEEP ?? 20_000);
const port = Number(process.env.BENCH_WAL_PG_PORT ?? Number(process.env.BENCH_PG_PORT ?? 54360) + 1);
const database = `ajr_wal_${process.pid}`;
const dir = path.join(DATA_DIR, `pg-wal-${port}`);
const server = await startEmbeddedDb({ dir, port, database, fast: true });
const db = new pg.Client({ connectionString: server.url });

type Wal = { records: number; bytes: number };
/**
 * Bytes from the WAL insert position (exact at once); records from pg_stat_wal, which a backend
 * publishes when it goes idle — at the latest after PostgreSQL's 10 s idle flush — so wait for it.
 */
const wal = async (): Promise<Wal> => {
  await new Promise((r) => setTimeout(r, 11_000));
  const r = (
    await db.query(
      `SELECT wal_records::float8 AS records, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 AS bytes FROM pg_stat_wal`,
    )
  ).rows[0];
  return r as Wal;
};
const per = (a: Wal, b: Wal, n: number) => ({
  walRecords: +((b.records - a.records) / n).toFixed(1),
  walBytes: Math.round((b.bytes - a.bytes) / n),
});

try {
  await deployMigrations(server.url);
  await db.connect();
  await runSetupSql(db);
  await seedBenchUser(db);
  // pg_stat_wal counts the whole server: keep autovacuum's own WAL out of the per-cycle figures.
  // (A partitioned table takes the setting on its leaves.)
  for (const table of ["AiRuntimeJob", "JobEvent", "AiRuntimeResult", "JobUsage", "QuotaUsage"]) {
    const { rows } = await db.query(
      `SELECT relid::regclass::text AS leaf FROM pg_partition_tree($1::regclass) WHERE isleaf`,
      [`"${table}"`],
    );
    for (const { leaf } of rows) await db.query(`ALTER TABLE ${leaf} SET (autovacuum_enabled = false)`);
  }
  process.env.DATABASE_URL = server.url;
  const { claimJobs, heartbeat } = await import("../../server/jobs/lease");
  const { submitResult } = await import("../../server/jobs/results");
  const { sweepExpiredLeases } = await import("../../server/jobs/sweep");
  const roles = { postmaster: postmasterPid(dir) };
  const holder = { runtimeInstanceId: "wal-probe", keyId: null };
  const cycle = async () => {
    const [lease] = await claimJobs({ ...holder, capabilities: ["learning_state_analysis"], limit: 1 });
    if (!lease) throw new Error("queue empty");
    const { id, attemptNo } = lease.job;
    if (process.env.BENCH_WAL_HEARTBEAT !== "0")
      await heartbeat(id, { ...holder, attemptNo, stage: "model_inference", progress: 50 });
    await submitResult(id, { ...holder, attemptNo, output, usage });
  };

  await clearJobs(db);
  await insertJobs(db, JOBS + 200);
  await db.query(`VACUUM ANALYZE "AiRuntimeJob"`);
  for (let i = 0; i < 200; i++) await cycle(); // warm: plans prepared, caches filled
  await db.query(`CHECKPOINT`);
  const w0 = await wal();
  const c0 = cpuNow(roles);
  const t0 = performance.now();
  for (let i = 0; i < JOBS; i++) await cycle();
  const ms = performance.now() - t0;
  const cpu = cpuSince(c0, roles); // read before wal(): its wait is not work
  const cycleResult = {
    jobs: JOBS,
    ...per(w0, await wal(), JOBS),
    postgresCpuMs: +(cpu.postgres / JOBS).toFixed(3),
    clientCpuMs: +(cpu.bench / JOBS).toFixed(3),
    wallMs: +(ms / JOBS).toFixed(3),
  };
  console.log(`[wal] cycle: ${JSON.stringify(cycleResult)}`);

  await clearJobs(db);
  await insertJobs(db, SWEEP, { status: "running", lockedBy: "gone", lockUntilSql: "now() - interval '1 minute'" });
  await db.query(`VACUUM ANALYZE "AiRuntimeJob"`);
  await db.query(`CHECKPOINT`);
  const w1 = await wal();
  const c1 = cpuNow(roles);
  const t1 = performance.now();
  const swept = await sweepExpiredLeases();
  const sweepMs = performance.now() - t1;
  const sweepCpu = cpuSince(c1, roles); // before wal(), as above
  if (swept.expired !== SWEEP) throw new Error(`swept ${swept.expired} of ${SWEEP}`);
  const sweepResult = {
    leases: SWEEP,
    ms: Math.round(sweepMs),
    ...per(w1, await wal(), SWEEP),
    postgresCpuMsPerLease: +(sweepCpu.postgres / SWEEP).toFixed(3),
    batches: swept.batches,
  };
  console.log(`[wal] sweep: ${JSON.stringify(sweepResult)}`);
  console.log(`[wal] load average ${loadAverage().join(" ")}`);
  const { getDb } = await import("../../server/db");
  await getDb().$disconnect();
} finally {
  await db.end().catch(() => {});
  await dropDatabase(server.url.replace(/\/[^/]+$/, "/postgres"), database).catch(() => {});
  await server.stop();
}
