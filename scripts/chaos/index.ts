import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { startEmbeddedDb, dropDatabase, ensureDatabase, type EmbeddedDb } from "../lib/embedded-db";
import { deployMigrations } from "../lib/migrator";
import { DATA_DIR } from "../lib/database-url";
import { ensureBuilt, startAppServer, type AppServer } from "../lib/app-server";
import { spawnRuntime, type RuntimeProcess } from "../../tests/system/runtime-process";
import { succeededCount, TERMINAL_SQL, verifyOutcome } from "./verify";
import { JOB_TYPES, targetTypesOf } from "../../server/job-types";

/** Jobs not yet terminal: the storm is over when none is left. */
const UNFINISHED = `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status NOT IN (${TERMINAL_SQL})`;

/**
 * `npm run test:chaos`: a few thousand jobs processed by Runtimes spread over two app instances
 * on one PostgreSQL while faults are injected one after another — Runtimes SIGKILLed mid-job,
 * PostgreSQL restarted, the apps' connections terminated, the pool exhausted, an app instance
 * killed. Then: no job lost, none with two results, every job terminal, retries consistent
 * with the events. Writes chaos-results/latest.{json,md}; exits non-zero on any violation.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const JOBS = Number(process.env.CHAOS_JOBS ?? 2000);
const pgPort = Number(process.env.CHAOS_PG_PORT ?? 54400);
const database = "ajr_chaos";
const log = (m: string) => console.log(`[chaos] ${new Date().toISOString().slice(11, 19)} ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pgServer: EmbeddedDb = await startPg();
const url = pgServer.url;
const adminUrl = url.replace(/\/[^/]+$/, "/postgres");
// A fresh database every run (an earlier, killed run may have left one).
await dropDatabase(adminUrl, database);
await ensureDatabase(adminUrl, database);
await deployMigrations(url);
process.env.DATABASE_URL = url;
const { seed } = await import("../../prisma/seed");
await seed();
const key = await setupJobs();
const { closeDb } = await import("../../server/db");
await closeDb();

let db = await connect();
ensureBuilt(log);
const appEnv = {
  JOB_LEASE_SECONDS: "4",
  SWEEP_INTERVAL_MS: "1000",
  DB_POOL_MAX: "5",
  DB_CONNECT_TIMEOUT_MS: "3000",
  ALLOW_GENERATED_SECRETS: "1",
  APP_DATA_DIR: path.join(DATA_DIR, "chaos"),
};
const apps: AppServer[] = [
  await startAppServer({ databaseUrl: url, env: appEnv }),
  await startAppServer({ databaseUrl: url, env: appEnv }),
];
const runtimeEnv = {
  RUNTIME_LOCAL_DELAY_MS: "30",
  RUNTIME_CONCURRENCY: "4",
  RUNTIME_HEARTBEAT_MS: "1000",
  RUNTIME_BACKOFF_MAX_MS: "2000",
};
const runtimes: RuntimeProcess[] = [0, 1, 2, 3].map((i) =>
  spawnRuntime({ apiUrl: apps[i % 2]!.url, apiKey: key, env: runtimeEnv }),
);
log(`${JOBS} jobs, 2 app instances (${apps.map((a) => a.url).join(", ")}), 4 Runtimes`);

const scenarios: { name: string; recoveryMs: number | null; note: string }[] = [];
/** Injects a fault, ends it, and measures how long until jobs succeed again after it ended. */
async function scenario(name: string, inject: () => Promise<string>) {
  await waitForProgress(20_000);
  log(`scenario: ${name}`);
  const note = await inject();
  const ended = Date.now();
  const recovered = await waitForProgress(120_000);
  const recoveryMs = recovered ? Date.now() - ended : null;
  scenarios.push({ name, recoveryMs, note });
  log(`  ${note}; recovered ${recoveryMs === null ? "NOT within 120 s" : `in ${recoveryMs} ms`}`);
}

try {
  await scenario("SIGKILL two Runtimes mid-job", async () => {
    const victims = [runtimes[0]!, runtimes[1]!];
    for (const v of victims) await v.kill("SIGKILL");
    runtimes[0] = spawnRuntime({ apiUrl: apps[0]!.url, apiKey: key, env: runtimeEnv });
    runtimes[1] = spawnRuntime({ apiUrl: apps[1]!.url, apiKey: key, env: runtimeEnv });
    return "2 Runtimes killed and replaced; their leases end after 4 s and the sweep requeues the jobs";
  });
  await scenario("restart PostgreSQL", async () => {
    await db.end().catch(() => {});
    const down = Date.now();
    await pgServer.stop();
    await sleep(3000);
    pgServer = await startPg();
    db = await connect();
    return `database down for ${((Date.now() - down) / 1000).toFixed(1)} s (stopped, restarted)`;
  });
  await scenario("terminate the apps' database connections", async () => {
    const { rows } = await db.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      [database],
    );
    return `${rows[0].n} connections terminated`;
  });
  await scenario("exhaust the connection pool", async () => {
    // Every connection of instance 1's pool gets stuck: the job table is locked for longer than
    // the pool's connect timeout (3 s) while 300 polls arrive, so the queued ones time out.
    const holder = await connect();
    await holder.query("BEGIN");
    await holder.query(`LOCK TABLE "AiRuntimeJob" IN ACCESS EXCLUSIVE MODE`);
    const burst = Promise.all(
      Array.from({ length: 300 }, () =>
        fetch(`${apps[0]!.url}/internal/runtime/jobs/poll`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body: JSON.stringify({
            runtimeInstanceId: "chaos-burst",
            capabilities: ["learning_state_analysis"],
            limit: 1,
          }),
        }).then(
          (r) => r.status,
          () => 0,
        ),
      ),
    );
    await sleep(4500);
    await holder.query("ROLLBACK");
    await holder.end();
    const by = (await burst).reduce<Record<number, number>>((m, s) => ((m[s] = (m[s] ?? 0) + 1), m), {});
    if (!by[503]) throw new Error(`the pool was never exhausted: ${JSON.stringify(by)}`);
    return `job table locked 4.5 s under 300 concurrent polls on a pool of 5: ${JSON.stringify(by)} (503 = UNAVAILABLE, retry with backoff)`;
  });
  await scenario("kill one of two app instances", async () => {
    await apps[1]!.stop("SIGKILL");
    await sleep(4000);
    await apps[1]!.start();
    return "instance 2 SIGKILLed, restarted after 4 s; its Runtimes backed off meanwhile";
  });

  const drained = await waitUntilDone(300_000);
  const outcome = await verifyOutcome(db, JOBS);
  const report = { jobs: JOBS, drained, scenarios, outcome, at: new Date().toISOString() };
  writeReport(report);
  if (!drained || outcome.violations.length || scenarios.some((s) => s.recoveryMs === null)) {
    console.error(`[chaos] FAILED: ${[...outcome.violations, !drained && "not drained"].filter(Boolean).join("; ")}`);
    process.exitCode = 1;
  } else log("all invariants hold");
} finally {
  await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
  await Promise.all(apps.map((a) => a.stop()));
  await db.end().catch(() => {});
  await dropDatabase(adminUrl, database).catch(() => {});
  await pgServer.stop();
}

async function startPg() {
  return startEmbeddedDb({ dir: path.join(DATA_DIR, `pg-chaos-${pgPort}`), port: pgPort, database, fast: true });
}

async function connect() {
  for (let i = 0; ; i++) {
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      c.on("error", () => {});
      return c;
    } catch (e) {
      if (i > 30) throw e;
      await sleep(500);
    }
  }
}

/** One job of each type through the real service (snapshot, params), then cloned in SQL to JOBS rows. */
async function setupJobs() {
  const { getDb } = await import("../../server/db");
  const { createJob } = await import("../../server/jobs/create");
  const { createRuntimeKey } = await import("../../server/runtime-keys");
  const user = await getDb().user.findUniqueOrThrow({ where: { email: "ada@example.com" } });
  const material = await getDb().material.findFirstOrThrow({ where: { userId: user.id }, orderBy: { id: "asc" } });
  const templates = [];
  for (const jobType of JOB_TYPES) {
    const { job } = await createJob({
      userId: user.id,
      jobType,
      // Ada herself, or her first material for a type that runs on materials only.
      target: targetTypesOf(jobType).includes("user")
        ? { type: "user", id: user.id }
        : { type: "material", id: material.id },
      idempotencyKey: `chaos-template-${jobType}`,
      maxRetryCount: 20,
      actor: { type: "system", id: "chaos" },
    });
    templates.push(job.id);
  }
  const perType = Math.ceil((JOBS - JOB_TYPES.length) / JOB_TYPES.length);
  await getDb().$executeRawUnsafe(`
    INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey", params, "runAfter", "createdAt", "updatedAt", "maxRetryCount", "timeoutSeconds")
    SELECT 'chaos_' || t.id || '_' || g, "userId", "jobType", "targetType", "targetId", "snapshotId", 'pending', "inputHash", 'chaos-' || t.id || '-' || g, params, now(), now(), now(), 20, 120
    FROM "AiRuntimeJob" t, generate_series(1, ${perType}) g WHERE t.id IN (${templates.map((id) => `'${id}'`).join(",")})`);
  await getDb().$executeRawUnsafe(
    `UPDATE "AiRuntimeJob" SET "idempotencyKey" = 'chaos-' || "idempotencyKey" WHERE "idempotencyKey" LIKE 'chaos-template-%'`,
  );
  await getDb()
    .$executeRawUnsafe(`INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
    SELECT id, NULL, 'pending', 'system', 'chaos', 0, now() FROM "AiRuntimeJob" WHERE id LIKE 'chaos_%'`);
  const total = await getDb().aiRuntimeJob.count({ where: { idempotencyKey: { startsWith: "chaos-" } } });
  if (total !== JOBS) {
    // Trim the clones to exactly JOBS so "no job lost" is checked against a known number.
    await getDb().$executeRawUnsafe(
      `DELETE FROM "AiRuntimeJob" WHERE id IN (SELECT id FROM "AiRuntimeJob" WHERE id LIKE 'chaos_%' ORDER BY id DESC LIMIT ${total - JOBS})`,
    );
  }
  return (await createRuntimeKey("chaos", undefined, { mayReceiveLearnerKeys: true })).key;
}

async function waitForProgress(timeoutMs: number) {
  const start = await succeededCount(db).catch(() => 0);
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    await sleep(200);
    const now = await succeededCount(db).catch(() => start);
    if (now > start) return true;
    const left = await db.query(UNFINISHED).catch(() => null);
    if (left && left.rows[0].n === 0) return true;
  }
  return false;
}

async function waitUntilDone(timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const { rows } = await db.query(UNFINISHED);
    if (rows[0].n === 0) return true;
    await sleep(500);
  }
  return false;
}

function writeReport(r: {
  jobs: number;
  drained: boolean;
  scenarios: typeof scenarios;
  outcome: Awaited<ReturnType<typeof verifyOutcome>>;
  at: string;
}) {
  const dir = path.join(ROOT, "chaos-results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "latest.json"), JSON.stringify(r, null, 2) + "\n");
  const md = [
    `# Chaos results`,
    ``,
    `${r.jobs} jobs, 2 app instances, 4 reference Runtimes (local analyzer), lease 4 s, sweep every 1 s, pool of 5 per instance. ${r.at}.`,
    ``,
    `| fault | what happened | recovery (first job succeeded after the fault ended) |`,
    `|---|---|---|`,
    ...r.scenarios.map(
      (s) => `| ${s.name} | ${s.note} | ${s.recoveryMs === null ? "not recovered" : `${s.recoveryMs} ms`} |`,
    ),
    ``,
    `Outcome: ${r.outcome.jobs} jobs, ${r.outcome.succeeded} succeeded, ${r.outcome.failed} failed, ${r.outcome.cancelled} cancelled, ${r.outcome.unfinished} unfinished; ${r.outcome.secondCompletions} jobs with a second accepted completion, ${r.outcome.foreignResults} results from another attempt; ${r.outcome.inconsistent} jobs whose retries disagree with their events. ${r.outcome.violations.length ? `VIOLATIONS: ${r.outcome.violations.join("; ")}` : "No violations."}`,
    ``,
  ].join("\n");
  fs.writeFileSync(path.join(dir, "latest.md"), md);
  console.log(md);
}
// Stray handles (a Runtime's pipes, a pool's timers) must not keep a finished run alive.
process.exit(process.exitCode ?? 0);
