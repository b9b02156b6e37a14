import pg from "pg";
import { output, usage } from "./payload";
import { onOwnDb } from "./own-db";
import { clearJobs, insertJobs, runSetupSql, seedBenchUser } from "./setup";
import { cpuNow, cpuSince, loadAverage, postmasterPid } from "./cpu";
import { pgBossRun } from "./pgboss";
import { median } from "./stats";
import { FLOOR_VARIANTS, floorRound, type FloorRound } from "./wal-floor";

/**
 * `npm run bench:wal`: PostgreSQL's own work per job, ours against pg-boss 12 at the same batch
 * size, measured the same way: one client, no HTTP, no other traffic on its own server, autovacuum
 * off. Ours: the domain functions the Runtime API runs (claim of BENCH_WAL_BATCH jobs, then their
 * results in one batch, as a Runtime's POST /results); pg-boss 12: fetch(BENCH_WAL_BATCH) + complete
 * of those ids. Per job: WAL records and bytes (pg_stat_wal and the insert position) and
 * PostgreSQL's CPU (/proc), in BENCH_WAL_ROUNDS alternating rounds of BENCH_WAL_JOBS jobs (medians).
 * Then where our PostgreSQL time and WAL go per statement (pg_stat_statements: calls, execution
 * µs and WAL bytes per job), and a sweep of BENCH_WAL_SWEEP expired leases. Each round also
 * measures the floor of an event row per transition (scripts/bench/wal-floor.ts): what any queue
 * that keeps one and stores the output writes, with nothing else.
 * Port: BENCH_WAL_PG_PORT (default BENCH_PG_PORT + 1).
 */
const JOBS = Number(process.env.BENCH_WAL_JOBS ?? 4000);
const BATCH = Number(process.env.BENCH_WAL_BATCH ?? 16);
const ROUNDS = Number(process.env.BENCH_WAL_ROUNDS ?? 3);
const SWEEP = Number(process.env.BENCH_WAL_SWEEP ?? 20_000);
const port = Number(process.env.BENCH_WAL_PG_PORT ?? Number(process.env.BENCH_PG_PORT ?? 54360) + 1);
type Wal = { records: number; bytes: number };
/**
 * Bytes from the WAL insert position (exact at once); records from pg_stat_wal, which a backend
 * publishes when it goes idle — at the latest after PostgreSQL's 10 s idle flush — so wait for it.
 */
const walOf = (db: pg.Client) => async (): Promise<Wal> => {
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
type Round = { walRecords: number; walBytes: number; postgresCpuMs: number; clientCpuMs: number };

// pg_stat_wal counts the whole server: no autovacuum's WAL or CPU in either system's figures.
const settings = { autovacuum: "off", shared_preload_libraries: "pg_stat_statements" };
await onOwnDb({ name: "wal", port, settings }, async (db, server) => {
  const wal = walOf(db);
  await db.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  await db.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
  await runSetupSql(db);
  await seedBenchUser(db);
  const { claimJobs, heartbeat } = await import("../../server/jobs/lease");
  const { submitResults } = await import("../../server/jobs/results-batch");
  const { sweepExpiredLeases } = await import("../../server/jobs/sweep");
  const roles = { postmaster: postmasterPid(server.dir) };
  const holder = { runtimeInstanceId: "wal-probe", keyId: null };
  /** One turn of a Runtime with BATCH slots: a claim, then the results of all it took in one batch. */
  const turn = async () => {
    const leases = await claimJobs({ ...holder, capabilities: ["learning_state_analysis"], limit: BATCH });
    if (!leases.length) return 0;
    if (process.env.BENCH_WAL_HEARTBEAT === "1")
      for (const { job } of leases)
        await heartbeat(job.id, { ...holder, attemptNo: job.attemptNo, stage: "model_inference", progress: 50 });
    const answers = await submitResults(
      holder,
      leases.map(({ job }) => ({
        jobId: job.id,
        jobType: "learning_state_analysis" as const,
        attemptNo: job.attemptNo,
        output,
        usage,
      })),
    );
    if (answers.some((a) => a.httpStatus !== 200)) throw new Error(`result refused: ${JSON.stringify(answers[0])}`);
    return leases.length;
  };

  const ours = async (): Promise<Round> => {
    await clearJobs(db);
    await insertJobs(db, JOBS);
    await db.query(`VACUUM ANALYZE`);
    await db.query(`CHECKPOINT`);
    const w0 = await wal();
    const c0 = cpuNow(roles);
    let done = 0;
    while (done < JOBS) {
      const n = await turn();
      if (!n) throw new Error(`queue empty after ${done} of ${JOBS}`);
      done += n;
    }
    const cpu = cpuSince(c0, roles); // read before wal(): its wait is not work
    return {
      ...per(w0, await wal(), JOBS),
      postgresCpuMs: +(cpu.postgres / JOBS).toFixed(3),
      clientCpuMs: +(cpu.bench / JOBS).toFixed(3),
    };
  };
  /** pg-boss 12 fetch(BATCH) + complete; `withOutput`: complete() stores our result's output on each job, as ours stores it. */
  const pgBoss = async (withOutput = false): Promise<Round> => {
    let w0: Wal | undefined;
    const ready = async () => {
      await db.query(`VACUUM ANALYZE`);
      await db.query(`CHECKPOINT`);
      w0 = await wal();
    };
    const run = await pgBossRun(
      server.url,
      JOBS,
      1,
      roles,
      "12-fetch-batch",
      BATCH,
      ready,
      withOutput ? output : undefined,
    );
    return {
      ...per(w0!, await wal(), JOBS),
      postgresCpuMs: +run.cpu.postgresMs.toFixed(3),
      clientCpuMs: +run.cpu.benchMs.toFixed(3),
    };
  };

  // Warm: plans prepared, caches filled, pg-boss's schema made.
  await clearJobs(db);
  await insertJobs(db, 20 * BATCH);
  for (let i = 0; i < 20; i++) await turn();
  await pgBossRun(server.url, 20 * BATCH, 1, roles, "12-fetch-batch", BATCH);

  type Rounds = { ours: Round; pgBoss: Round; pgBossOutput: Round; floor: FloorRound[] };
  const rounds: Rounds[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const a = await ours();
    const b = await pgBoss();
    const c = await pgBoss(true);
    const floor = await floorRound(db, roles, JOBS, BATCH);
    rounds.push({ ours: a, pgBoss: b, pgBossOutput: c, floor });
    console.log(
      `[wal] round ${r + 1}: ours ${JSON.stringify(a)} pg-boss 12 fetch(${BATCH}) ${JSON.stringify(b)} the same storing our output ${JSON.stringify(c)} floor ${JSON.stringify(floor)}`,
    );
  }
  const med = (f: (r: Rounds) => number) => +median(rounds.map(f)).toFixed(3);
  const summary = {
    jobs: JOBS,
    batch: BATCH,
    rounds: ROUNDS,
    ours: {
      walRecords: med((r) => r.ours.walRecords),
      walBytes: med((r) => r.ours.walBytes),
      postgresCpuMs: med((r) => r.ours.postgresCpuMs),
    },
    pgBoss: {
      walRecords: med((r) => r.pgBoss.walRecords),
      walBytes: med((r) => r.pgBoss.walBytes),
      postgresCpuMs: med((r) => r.pgBoss.postgresCpuMs),
    },
    pgBossStoringOutput: {
      walRecords: med((r) => r.pgBossOutput.walRecords),
      walBytes: med((r) => r.pgBossOutput.walBytes),
      postgresCpuMs: med((r) => r.pgBossOutput.postgresCpuMs),
    },
    floor: FLOOR_VARIANTS.map((name, i) => ({
      variant: name,
      walRecords: med((r) => r.floor[i]!.walRecords),
      walBytes: med((r) => r.floor[i]!.walBytes),
      postgresCpuMs: med((r) => r.floor[i]!.postgresCpuMs),
      walBytesToPgBoss: med((r) => r.floor[i]!.walBytes / r.pgBoss.walBytes),
    })),
    ratios: {
      walBytes: med((r) => r.ours.walBytes / r.pgBoss.walBytes),
      postgresCpu: med((r) => r.ours.postgresCpuMs / r.pgBoss.postgresCpuMs),
    },
  };
  console.log(`[wal] medians: ${JSON.stringify(summary)}`);

  // Where our share goes, statement by statement (one more round of ours, counted alone).
  await clearJobs(db);
  await insertJobs(db, JOBS);
  await db.query(`VACUUM ANALYZE`);
  await db.query(`SELECT pg_stat_statements_reset()`);
  const from = (await db.query(`SELECT pg_current_wal_insert_lsn() AS lsn`)).rows[0].lsn as string;
  for (let done = 0; done < JOBS;) done += await turn();
  const to = (await db.query(`SELECT pg_current_wal_insert_lsn() AS lsn`)).rows[0].lsn as string;
  const { rows } = await db.query<{ calls: string; exec: number; wal: string; query: string }>(
    `SELECT calls, total_exec_time AS exec, wal_bytes AS wal, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
     FROM pg_stat_statements WHERE query !~* 'pg_stat_statements' ORDER BY total_exec_time DESC LIMIT 12`,
  );
  console.log(`[wal] ours per statement (per job: calls, execution µs, WAL bytes):`);
  for (const r of rows)
    console.log(
      `[wal]   ${(Number(r.calls) / JOBS).toFixed(3)}  ${((r.exec * 1000) / JOBS).toFixed(1)} µs  ${Math.round(Number(r.wal) / JOBS)} B  ${r.query}`,
    );

  // The same round's WAL by relation (each record counted once, on its first block; none: commits and the like).
  const byRelation = await db.query<{ rel: string; kind: string; records: string; bytes: string }>(
    `SELECT COALESCE(regexp_replace(pg_filenode_relation(0, b.relfilenode)::text, '_p\\d+|_before', ''), '(none)') AS rel,
        b.resource_manager || ' ' || split_part(b.record_type, ' ', 1) AS kind, count(*) AS records, sum(b.record_length) AS bytes
     FROM pg_get_wal_block_info($1, $2, true) b WHERE b.block_id = 0 OR b.block_id IS NULL GROUP BY 1, 2
     UNION ALL
     SELECT '(none)', r.resource_manager || ' ' || r.record_type, count(*), sum(r.record_length)
     FROM pg_get_wal_records_info($1, $2) r WHERE r.block_ref IS NULL GROUP BY 1, 2
     ORDER BY bytes DESC LIMIT 40`,
    [from, to],
  );
  console.log(`[wal] ours WAL by relation and record (per job: records, bytes):`);
  for (const r of byRelation.rows)
    console.log(
      `[wal]   ${(Number(r.records) / JOBS).toFixed(2)}  ${Math.round(Number(r.bytes) / JOBS)} B  ${r.rel}  ${r.kind}`,
    );

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
});
