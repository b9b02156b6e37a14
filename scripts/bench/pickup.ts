import http from "node:http";
import pg from "pg";
import { postJson } from "./http";
import { percentiles } from "./stats";
import { startWorkers } from "./workers";
import { cpuNow, cpuSince } from "./cpu";

type Roles = { postmaster: number; appGroup?: number };

/**
 * Pickup with long poll: idle bench Runtimes wait in a long poll while `jobs` jobs are created
 * through the domain (as a learner's request would: transaction, JobEvent, NOTIFY) at random
 * intervals. Pickup is created → locked, both stamped by the server clocks in the row.
 */
export async function pickup(opts: {
  db: pg.Client;
  appUrl: string;
  key: string;
  jobs: number;
  runtimes: number;
  waitMs: number;
}) {
  const { createJob } = await import("../../server/jobs/create");
  const workers = await startWorkers("longpoll", opts.appUrl, opts.key, opts.runtimes, 1, {
    BENCH_WAIT_MS: String(opts.waitMs),
  });
  workers.go();
  // Let every Runtime park its first long poll.
  await new Promise((r) => setTimeout(r, 1000));
  const tag = `pickup_${Date.now()}`;
  for (let i = 0; i < opts.jobs; i++) {
    await createJob({
      userId: "bench_user",
      jobType: "learning_state_analysis",
      target: { type: "user", id: "bench_user" },
      idempotencyKey: `${tag}_${i}`,
      actor: { type: "learner", id: "bench_user" },
    });
    // Random gaps (0–100 ms): arrivals come one by one, not in a batch the Runtimes are already polling for.
    await new Promise((r) => setTimeout(r, Math.random() * 100));
  }
  for (let t = 0; t < 300; t++) {
    const left = await opts.db.query(
      `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE "idempotencyKey" LIKE $1 AND status <> 'succeeded'`,
      [`${tag}%`],
    );
    if (left.rows[0].n === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  workers.stop();
  const outs = await workers.done;
  const { rows } = await opts.db.query(
    `SELECT EXTRACT(EPOCH FROM (e."createdAt" - j."createdAt")) * 1000 AS ms
     FROM "AiRuntimeJob" j JOIN "JobEvent" e ON e."jobId" = j.id AND e."toStatus" = 'locked' AND e."attemptNo" = 1
     WHERE j."idempotencyKey" LIKE $1`,
    [`${tag}%`],
  );
  const done = outs.reduce((n, o) => n + o.done, 0);
  return { jobs: opts.jobs, runtimes: opts.runtimes, done, pickupMs: percentiles(rows.map((r) => Number(r.ms))) };
}

/**
 * Idle cost: `runtimes` simulated idle Runtimes (one keep-alive connection each, in this process)
 * long-poll an empty queue for `windowMs`; counts their requests and the CPU the app and
 * PostgreSQL spend meanwhile.
 */
export async function idleLongPollers(opts: {
  appUrl: string;
  key: string;
  runtimes: number;
  waitMs: number;
  windowMs: number;
  roles: Roles;
}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.runtimes + 10 });
  let requests = 0;
  let stop = false;
  const one = async (i: number) => {
    while (!stop) {
      requests++;
      const res = await postJson(agent, `${opts.appUrl}/internal/runtime/jobs/poll`, opts.key, {
        runtimeInstanceId: `idle-${i}`,
        capabilities: ["quiz_generation"],
        limit: 1,
        claim: true,
        waitMs: opts.waitMs,
      });
      if (res.status !== 200) throw new Error(`idle poll answered ${res.status}`);
    }
  };
  // Warm up: every poller has a connection and a parked request before the window opens.
  const loops = Array.from({ length: opts.runtimes }, (_, i) => one(i));
  await new Promise((r) => setTimeout(r, 3000));
  const before = requests;
  const cpu0 = cpuNow(opts.roles);
  const t = performance.now();
  await new Promise((r) => setTimeout(r, opts.windowMs));
  const cpu = cpuSince(cpu0, opts.roles);
  const elapsed = performance.now() - t;
  const inWindow = requests - before;
  stop = true;
  await Promise.all(loops);
  agent.destroy();
  return {
    runtimes: opts.runtimes,
    waitMs: opts.waitMs,
    windowMs: Math.round(elapsed),
    requests: inWindow,
    requestsPerRuntimePerWait: Math.round((inWindow / opts.runtimes / (elapsed / opts.waitMs)) * 100) / 100,
    appCpuPercentOfCore: Math.round((cpu.app / elapsed) * 1000) / 10,
    postgresCpuPercentOfCore: Math.round((cpu.postgres / elapsed) * 1000) / 10,
  };
}

/** The idle pollers' waitMs: the longest the protocol allows (docs/contract.md#the-runtime-protocol). */
const IDLE_WAIT_MS = 20_000;

/**
 * How the busy Runtimes work (BENCH_BUSY_MODE): `reference`, as the reference Runtime does (4 slots,
 * claims up to the free ones with a long poll, results sent together); `claim1`, each of 4 loops
 * claim(1) → heartbeat → result (three requests per job).
 */
const BUSY_MODES = {
  reference: {
    worker: "slots-wait",
    label: "4 slots each, as the reference Runtime: claims up to its free slots, results sent together",
  },
  claim1: { worker: "longpoll", label: "4 loops each, claim(1) → heartbeat → result" },
} as const;

/**
 * Pickup under load: `busy` Runtime processes (4 loops each) work a backlog of
 * another job type the whole time (topped up so it never runs dry: their NOTIFYs, HTTP and
 * PostgreSQL work are the load), while `idle` long-pollers — real HTTP long polls to the app, each
 * its own Runtime instance (one process, one keep-alive connection each) — wait for the measured
 * type. `jobs` jobs of that type are created one by one through the domain at random 0–100 ms gaps.
 * Pickup: the creation's commit → the lock's commit (PostgreSQL's commit timestamps; the bench's
 * server runs with track_commit_timestamp); also the row's createdAt (stamped inside the creating
 * transaction, before its quota update, insert, event and NOTIFY) → the lock event.
 */
export async function pickupUnderLoad(opts: {
  db: pg.Client;
  appUrl: string;
  key: string;
  jobs: number;
  busy: number;
  idle: number;
  roles: Roles;
  log: (m: string) => void;
}) {
  const { createJob } = await import("../../server/jobs/create");
  const { insertJobs } = await import("./setup");
  const BUSY_TYPE = "weak_point_analysis";
  const busyMode = (process.env.BENCH_BUSY_MODE ?? "reference") as keyof typeof BUSY_MODES;
  if (!Object.hasOwn(BUSY_MODES, busyMode)) throw new Error(`BENCH_BUSY_MODE: one of ${Object.keys(BUSY_MODES)}`);
  const backlog = async (db = opts.db) =>
    (
      await db.query(
        `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status = 'pending' AND "jobType" = $1::"JobType"`,
        [BUSY_TYPE],
      )
    ).rows[0].n as number;
  // A backlog inserted before the run, kept from running dry by the feed below (whose counting and
  // small inserts are the bench's own load in the window, a few per cent of a core). Not more: an idle
  // poller's empty claim walks the other type's pending index entries, so a larger backlog makes
  // the idle pollers' claims dearer.
  await insertJobs(opts.db, 20_000, { jobType: BUSY_TYPE });
  const idle = await startWorkers("longpoll", opts.appUrl, opts.key, 1, opts.idle, {
    BENCH_ID: "idle",
    BENCH_WAIT_MS: String(IDLE_WAIT_MS),
    BENCH_INSTANCE_PER_LOOP: "1",
    BENCH_CAPABILITIES: "learning_state_analysis",
    BENCH_SPREAD_MS: String(IDLE_WAIT_MS),
  });
  const busy = await startWorkers(BUSY_MODES[busyMode].worker, opts.appUrl, opts.key, opts.busy, 4, {
    BENCH_WAIT_MS: "20000",
    BENCH_CAPABILITIES: BUSY_TYPE,
  });
  idle.go();
  busy.go();
  const goAt = performance.now();
  const goWall = Date.now();
  // Every idle poller parks its first long poll (their starts are spread over one waitMs, as a fleet
  // started over time: started in the same instant, all 500 would time out and ask again in the same
  // instant every waitMs, for as long as they stay idle); the busy ones reach their pace.
  await new Promise((r) => setTimeout(r, IDLE_WAIT_MS + 2000));
  const busyStart = await opts.db.query(
    `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status = 'succeeded' AND "jobType" = $1::"JobType"`,
    [BUSY_TYPE],
  );
  // Warm Runtimes and a warm app outran the 20,000 jobs inside the window (four runs after the
  // throughput rounds). A larger backlog up front would make every idle claim
  // dearer (above); instead, as on a busy system where work keeps arriving, 2,000 more whenever
  // fewer than 8,000 are left (one INSERT of 2,000 rows: about 0.1 s of PostgreSQL every few seconds).
  // On a connection of its own: opts.db's queries below do not queue behind it.
  const feedDb = new pg.Client({ connectionString: process.env.DATABASE_URL });
  feedDb.on("error", () => {});
  await feedDb.connect();
  let topUp = 0;
  let feeding = true;
  let minBacklog = Infinity;
  const feed = (async () => {
    while (feeding) {
      const left = await backlog(feedDb);
      minBacklog = Math.min(minBacklog, left);
      if (left < 8_000) {
        await insertJobs(feedDb, 2_000, { jobType: BUSY_TYPE });
        topUp += 2_000;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    // A feed that fails (the section failed, its database dropped) just stops: a backlog that then
    // runs dry is caught below.
  })().catch(() => {});
  // A listener of our own (this process is idle between creations): when PostgreSQL delivers the
  // creation's NOTIFY, against when the app starts the claim it wakes.
  const heard: Record<string, number> = {};
  const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
  // Left open when the section fails: the bench's cleanup drops the database under it.
  listener.on("error", () => {});
  await listener.connect();
  listener.on("notification", (m) => {
    const id = /"id":"([^"]+)"/.exec(m.payload ?? "")?.[1];
    if (id && !(id in heard) && /"status":"pending"/.test(m.payload ?? "")) heard[id] = Date.now();
  });
  await listener.query(`LISTEN ${(await import("../../server/jobs/job-change")).CHANNEL}`);
  const tag = `load_${Date.now()}`;
  const commits: Record<string, number> = {};
  const cpu0 = cpuNow(opts.roles);
  const t0 = performance.now();
  for (let i = 0; i < opts.jobs; i++) {
    const made = await createJob({
      userId: "bench_user_b",
      jobType: "learning_state_analysis",
      target: { type: "user", id: "bench_user_b" },
      idempotencyKey: `${tag}_${i}`,
      actor: { type: "learner", id: "bench_user_b" },
    });
    commits[made.job.id] = Date.now();
    await new Promise((r) => setTimeout(r, Math.random() * 100));
  }
  for (let t = 0; t < 300; t++) {
    const left = await opts.db.query(
      `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE "idempotencyKey" LIKE $1 AND status <> 'succeeded'`,
      [`${tag}%`],
    );
    if (left.rows[0].n === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const elapsed = performance.now() - t0;
  const cpu = cpuSince(cpu0, opts.roles);
  const busyEnd = await opts.db.query(
    `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status = 'succeeded' AND "jobType" = $1::"JobType"`,
    [BUSY_TYPE],
  );
  // The least the feed saw, and what is left now: above 0, the busy Runtimes never ran dry.
  feeding = false;
  await feed;
  await feedDb.end();
  minBacklog = Math.min(minBacklog, await backlog());
  if (minBacklog === 0) throw new Error("pickup under load: the busy Runtimes' backlog ran dry; raise it");
  const stopAt = performance.now();
  busy.stop();
  idle.stop();
  const [busyOuts, idleOuts] = await Promise.all([busy.done, idle.done]);
  // The creation event's row is written by the creating transaction and never updated, so its
  // xmin's commit timestamp is the creation's commit; likewise the lock event's is the lock's.
  const { rows } = await opts.db.query(
    `SELECT j.id, EXTRACT(EPOCH FROM (e."createdAt" - j."createdAt")) * 1000 AS ms,
       EXTRACT(EPOCH FROM e."createdAt") * 1000 AS "lockedAt",
       EXTRACT(EPOCH FROM (pg_xact_commit_timestamp(e.xmin) - pg_xact_commit_timestamp(c.xmin))) * 1000 AS "commitMs",
       EXTRACT(EPOCH FROM pg_xact_commit_timestamp(c.xmin)) * 1000 AS "createdWall",
       EXTRACT(EPOCH FROM ((e."createdAt" AT TIME ZONE 'UTC') - pg_xact_commit_timestamp(c.xmin))) * 1000 AS "wakeMs",
       EXTRACT(EPOCH FROM (pg_xact_commit_timestamp(e.xmin) - (e."createdAt" AT TIME ZONE 'UTC'))) * 1000 AS "claimMs"
     FROM "AiRuntimeJob" j JOIN "JobEvent" e ON e."jobId" = j.id AND e."toStatus" = 'locked' AND e."attemptNo" = 1
       JOIN "JobEvent" c ON c."jobId" = j.id AND c."fromStatus" IS NULL
     WHERE j."idempotencyKey" LIKE $1`,
    [`${tag}%`],
  );
  await listener.end();
  const delivered = rows.filter((r) => heard[r.id]).map((r) => heard[r.id]! - Number(r.createdWall));
  opts.log(
    `pickup under load: commit → NOTIFY heard by the bench's own listener ${JSON.stringify(percentiles(delivered))}`,
  );
  const slow = [...rows].sort((a, b) => Number(b.commitMs) - Number(a.commitMs)).slice(0, 8);
  opts.log(
    `pickup under load, slowest: ${slow.map((r) => `${Math.round(Number(r.commitMs))} ms at go+${Math.round(Number(r.createdWall) - goWall)}`).join(", ")}`,
  );
  if (rows.length !== opts.jobs) throw new Error(`pickup under load: ${rows.length} of ${opts.jobs} jobs were locked`);
  const idleDone = idleOuts.reduce((n, o) => n + o.done, 0);
  const busyDone = busyEnd.rows[0].n - busyStart.rows[0].n;
  return {
    jobs: opts.jobs,
    busyRuntimes: opts.busy,
    busyLoopsPerRuntime: 4,
    busyShape: BUSY_MODES[busyMode].label,
    idleLongPollers: opts.idle,
    /** Jobs the idle pollers finished (every measured job: the busy Runtimes do not take its type). */
    idleDone,
    busyJobsPerSecond: Math.round((busyDone / elapsed) * 1000),
    busyBacklogMin: minBacklog,
    busyBacklogTopUp: topUp,
    busyReports: busyOuts.length,
    pickupMs: percentiles(rows.map((r) => Number(r.ms))),
    /** The headline: the creation's commit → the lock's commit, both PostgreSQL's own commit timestamps. */
    commitToLockMs: percentiles(rows.map((r) => Number(r.commitMs))),
    /** Its two parts: the creation's commit → the claim's start in the app (NOTIFY, the wake, the app's event loop; ms clock)… */
    commitToClaimStartMs: percentiles(rows.map((r) => Number(r.wakeMs))),
    /** …and the claim's start → its commit (a pool connection, the statement). */
    claimStartToCommitMs: percentiles(rows.map((r) => Number(r.claimMs))),
    /** The creation's commit → its NOTIFY read by a listener in this (mostly idle) process: PostgreSQL's part of the wake. */
    commitToNotifyHeardMs: percentiles(delivered),
    /** The creation's return in its caller → the lock's statement start (a loaded caller sees its commit late). */
    returnToLockMs: percentiles(rows.map((r) => Number(r.lockedAt) - commits[r.id]!)),
    /** Claims the idle pollers made (each long poll answered, with a job or empty after 20 s): one per job means no herd. */
    idleRequests: idleOuts.reduce((n, o) => n + (o.latencies.longpoll?.length ?? 0), 0),
    /** Of those, claims refused (503 under load) and asked again 50 ms later. */
    idleRefused: idleOuts.reduce((n, o) => n + (o.refused ?? 0), 0),
    /**
     * What no herd costs: every poller's long polls that end empty at 20 s over the window
     * (from "go" to the stop, plus the one each has parked when stopped), and one answer per job.
     */
    idleAnswersWithoutHerd: Math.round(opts.idle * ((stopAt - goAt) / IDLE_WAIT_MS + 1) + opts.jobs),
    windowMs: Math.round(stopAt - goAt),
    appCpuPercentOfCore: Math.round((cpu.app / elapsed) * 1000) / 10,
    postgresCpuPercentOfCore: Math.round((cpu.postgres / elapsed) * 1000) / 10,
  };
}
