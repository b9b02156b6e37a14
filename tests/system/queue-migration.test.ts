import { PROTOCOL_HEADER, RUNTIME_PROTOCOL_VERSION } from "@/server/runtime-api/protocol";
import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { deployMigrations } from "../../scripts/lib/migrator";
import { dropDatabase, ensureDatabase } from "../../scripts/lib/embedded-db";
import { closeDb, getDb } from "@/server/db";
import { captureSnapshot } from "@/server/jobs/snapshot";
import { targetTypesOf } from "@/server/job-types";
import { createRuntimeKey, FULL_SCOPE } from "@/server/runtime-keys";
import type { JobType } from "@/server/generated/prisma/enums";
import { createLearner, uid, type Learner } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { eventually } from "../helpers/eventually";
import { spawnRuntimes, type RuntimeProcess } from "./runtime-process";
import { expectSucceededOnce, outcomeViolations, paramsFor } from "./jobs";
import {
  oldClaim,
  oldCreate,
  oldHeartbeat,
  oldLock,
  oldSucceed,
  type OldHolder,
  type OldJob,
} from "../../scripts/lib/previous-release";

/**
 * The queue table's migration (prisma/migrations/…_job_queue) on a live instance: a database as the
 * release before it left it, with jobs in every in-flight state; the migration deployed while that
 * release keeps writing (a transaction it holds open makes the migration wait, and its next writes
 * queue behind the migration); then this branch's app and real Runtimes finish the work. Nothing is
 * lost or done twice, held leases survive, and JobQueue agrees with the job table at every check.
 */
const MIGRATION = "20261207051500_job_queue";
const ROOT = path.resolve(import.meta.dirname, "../..");
const TYPES: JobType[] = ["learning_state_analysis", "weak_point_analysis", "next_action_planning"];
// Long enough that no lease held across the migration and the new app's start runs out on a slow machine.
const LEASE_MS = 300_000;

let url: string;
let adminUrl: string;
let database: string;
let app: AppServer | undefined;
const runtimes: RuntimeProcess[] = [];
const clients: pg.Client[] = [];

async function connect() {
  const c = new pg.Client({ connectionString: url });
  c.on("error", () => {});
  await c.connect();
  clients.push(c);
  return c;
}

beforeAll(async () => {
  // A database of its own, migrated to the release before the queue table.
  const base = process.env.DATABASE_URL!;
  adminUrl = base.replace(/\/[^/]*$/, "/postgres");
  database = `ajr_queue_migration_${process.pid}`;
  await ensureDatabase(adminUrl, database);
  url = base.replace(/\/[^/]*$/, `/${database}`);
  await closeDb();
  process.env.DATABASE_URL = url;
  await deployMigrations(url, { before: MIGRATION });
  // The fixtures below are written with this release's Prisma client, which reads the columns
  // later migrations add: they stand in until the deploy, which then adds them for real.
  await withClient((c) =>
    c.query(SHIM.map((col) => `ALTER TABLE ${col.table} ADD COLUMN ${col.column} ${col.type}`).join(";")),
  );
});

/** The columns migrations after MIGRATION add that the Prisma client reads (see beforeAll). */
const SHIM = [
  { table: `"User"`, column: `"digestEpoch"`, type: "INTEGER NOT NULL DEFAULT 0" },
  { table: `"QuizAttempt"`, column: `"selfMarked"`, type: "BOOLEAN NOT NULL DEFAULT false" },
  { table: `"RuntimeInstance"`, column: `"protocolVersion"`, type: "TEXT" },
  { table: `"ReviewCard"`, column: `"sourceKey"`, type: "TEXT" },
  { table: `"ReviewCard"`, column: `"editedAt"`, type: "TIMESTAMP(3)" },
];

async function withClient<T>(fn: (c: pg.Client) => Promise<T>) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
  await app?.stop();
  await Promise.all(clients.map((c) => c.end().catch(() => {})));
  await closeDb();
  await dropDatabase(adminUrl, database).catch(() => {});
});

/**
 * Where JobQueue and the job table disagree, read in one snapshot: a job in flight without exactly
 * its queue row (status, priority, queueTurn, leaseCheckAt as on the job), or a queue row of a job
 * that has ended or does not exist.
 */
async function queueDisagreements(db: pg.Client) {
  const { rows } = await db.query<{ problem: string }>(`
    SELECT j.id || ': ' || j.status || ' without its queue row' AS problem FROM "AiRuntimeJob" j
    WHERE j.status IN ('pending', 'locked', 'running', 'expired')
      AND NOT EXISTS (SELECT 1 FROM "JobQueue" q WHERE q."jobId" = j.id AND q.status = j.status AND q.priority = j.priority
        AND q."queueTurn" = j."queueTurn" AND q."leaseCheckAt" IS NOT DISTINCT FROM j."leaseCheckAt"
        AND q."createdAt" = j."createdAt" AND q."jobType" = j."jobType" AND q."userId" = j."userId")
    UNION ALL
    SELECT q."jobId" || ': queue row of a job ' || COALESCE(j.status::text, 'missing') FROM "JobQueue" q
    LEFT JOIN "AiRuntimeJob" j ON j.id = q."jobId"
    WHERE j.id IS NULL OR j.status NOT IN ('pending', 'locked', 'running', 'expired')`);
  return rows.map((r) => r.problem);
}

/** The backends of this database waiting for a lock, with the pids that block each. */
async function lockWaits(db: pg.Client) {
  const { rows } = await db.query<{ pid: number; blockers: number[]; query: string }>(
    `SELECT pid, pg_blocking_pids(pid) AS blockers, query FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return rows;
}

const backendPid = async (c: pg.Client) =>
  (await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;

async function runtimeCall(key: string, jobId: string, what: "heartbeat" | "result", body: Record<string, unknown>) {
  const res = await fetch(`${app!.url}/internal/runtime/jobs/${jobId}/${what}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${key}`,
      [PROTOCOL_HEADER]: RUNTIME_PROTOCOL_VERSION,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("[SYSTEM] the queue table's migration on a live instance", () => {
  it("jobs in flight before, during and after it are each finished once; held leases survive; JobQueue agrees throughout", async () => {
    const learners = [await createLearner(), await createLearner()];
    const key = await createRuntimeKey(uid("key"), undefined, FULL_SCOPE);
    const holder = (name: string): OldHolder => ({ runtimeInstanceId: uid(name), keyId: key.id });
    const heldRt = holder("rt-held");
    const oldAppRt = holder("rt-old");
    const goneRt = holder("rt-gone");

    // What a creation of the previous release needs: the learner's snapshot of each type's target.
    const specs: OldJob[] = [];
    for (let i = 0; i < 60; i++) {
      const learner: Learner = learners[i % 2]!;
      const jobType = TYPES[i % TYPES.length]!;
      const target = targetTypesOf(jobType).includes("user")
        ? { type: "user" as const, id: learner.user.id }
        : { type: "material" as const, id: learner.material.id };
      const snapshot = await captureSnapshot(getDb(), learner.user.id, target);
      specs.push({
        userId: learner.user.id,
        jobType,
        targetType: target.type,
        targetId: target.id,
        snapshotId: snapshot.id,
        params: paramsFor(jobType, i),
        timeoutSeconds: 600,
      });
    }
    let next = 0;
    const spec = (extra: Partial<OldJob> = {}) => ({ ...specs[next++ % specs.length]!, ...extra });
    const outputFor = async (jobId: string) => {
      // Only the columns the previous release's table has (this release adds queueSeq).
      const job = await getDb().aiRuntimeJob.findUniqueOrThrow({
        where: { id: jobId },
        select: { userId: true, jobType: true, params: true },
      });
      const kps = await getDb().knowledgePoint.findMany({ where: { userId: job.userId }, select: { id: true } });
      return validOutput(
        job.jobType,
        kps.map((k) => k.id),
        job.params as Record<string, unknown>,
      );
    };

    // The previous release's jobs, in every state.
    const setup = await connect();
    const pending: string[] = [];
    for (let i = 0; i < 10; i++) pending.push(await oldCreate(setup, spec()));
    const future: string[] = [];
    for (let i = 0; i < 3; i++) future.push(await oldCreate(setup, spec({ runAfter: new Date(Date.now() + 20_000) })));
    const held: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await oldCreate(setup, spec());
      expect(await oldLock(setup, id, heldRt, LEASE_MS)).toBe(1);
      if (i % 2) expect(await oldHeartbeat(setup, id, heldRt, 1, LEASE_MS)).toBe(1);
      held.push(id);
    }
    const oldHeld: string[] = [];
    for (let i = 0; i < 2; i++) {
      const id = await oldCreate(setup, spec());
      expect(await oldLock(setup, id, oldAppRt, LEASE_MS)).toBe(1);
      oldHeld.push(id);
    }
    const expired = await oldCreate(setup, spec());
    expect(await oldLock(setup, expired, goneRt, -LEASE_MS)).toBe(1);
    const finished: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await oldCreate(setup, spec());
      await oldLock(setup, id, oldAppRt, LEASE_MS);
      await oldHeartbeat(setup, id, oldAppRt, 1, LEASE_MS);
      await oldSucceed(setup, id, oldAppRt, 1, await outputFor(id));
      finished.push(id);
    }
    const outputs = new Map<string, unknown>();
    for (const id of [...held, ...oldHeld]) outputs.set(id, await outputFor(id));
    expect((await setup.query(`SELECT to_regclass('"JobQueue"') AS t`)).rows[0].t).toBeNull();
    // The layout as the previous release left it again: the stand-in columns go before the deploy.
    await setup.query(SHIM.map((col) => `ALTER TABLE ${col.table} DROP COLUMN ${col.column}`).join(";"));

    // An open transaction of the previous release: a new job and a heartbeat, not yet committed.
    const blocker = await connect();
    await blocker.query("BEGIN");
    const madeInOpenTx = await oldCreate(blocker, spec());
    expect(await oldHeartbeat(blocker, held[0]!, heldRt, 1, LEASE_MS)).toBe(1);
    const blockerPid = await backendPid(blocker);
    // A creation of the previous release under way: its transaction has read the job table (the
    // creation key's lookup) and will insert once the migration is waiting.
    const creation = await connect();
    await creation.query("BEGIN");
    await creation.query(`SELECT id FROM "AiRuntimeJob" WHERE "userId" = $1 AND "idempotencyKey" = 'none'`, [
      learners[0]!.user.id,
    ]);

    // The deploy step of this release: `scripts/migrate.ts deploy`, as its own process.
    let migrateOut = "";
    const migrate = spawn(process.execPath, ["--import", "tsx", "scripts/migrate.ts", "deploy"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, DIRECT_DATABASE_URL: url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    migrate.stdout.on("data", (b: Buffer) => (migrateOut += b.toString()));
    migrate.stderr.on("data", (b: Buffer) => (migrateOut += b.toString()));
    const migrated = new Promise<number | null>((resolve) => migrate.on("exit", (code) => resolve(code)));
    let migrationExited = false;
    void migrated.then(() => (migrationExited = true));

    const watcher = await connect();
    const migrationWait = await eventually(
      "the migration waits for the open transaction",
      async () => {
        if (migrationExited) throw new Error(`the migration ended without waiting: ${migrateOut}`);
        return (await lockWaits(watcher)).find((w) => w.query.includes("JobQueue")) ?? null;
      },
      120_000,
    );
    expect(migrationWait.blockers).toContain(blockerPid);
    // The creation inserts now, holding the read it made before the migration asked for its lock.
    const creating = oldCreate(creation, spec());

    // The previous release keeps working: new jobs, its Runtimes' heartbeats, results. Its next
    // write queues behind the migration's lock.
    const writer = await connect();
    const writerPid = await backendPid(writer);
    const during: string[] = [];
    const claimedByOld: string[] = [];
    const state = { creating: true, running: true, migrated: false, afterMigration: 0, lostLeases: [] as string[] };
    const heartbeatAll = async () => {
      for (const [id, rt] of [
        ...held.map((h) => [h, heldRt] as const),
        ...oldHeld.map((h) => [h, oldAppRt] as const),
      ]) {
        const current = await writer.query<{ status: string }>(`SELECT status FROM "AiRuntimeJob" WHERE id = $1`, [id]);
        if (!["locked", "running"].includes(current.rows[0]!.status)) continue;
        if ((await oldHeartbeat(writer, id, rt, 1, LEASE_MS)) === null) state.lostLeases.push(id);
      }
    };
    let writeError: unknown = null;
    const writing = (async () => {
      for (let i = 0; state.running; i++) {
        const wasMigrated = state.migrated;
        if (state.creating) during.push(await oldCreate(writer, spec()));
        await heartbeatAll();
        if (i === 1) await oldSucceed(writer, oldHeld[0]!, oldAppRt, 1, outputs.get(oldHeld[0]!));
        if (wasMigrated) {
          if (state.afterMigration === 1) await oldSucceed(writer, oldHeld[1]!, oldAppRt, 1, outputs.get(oldHeld[1]!));
          // A claim of the previous release on the migrated layout, its job run to the end.
          if (state.afterMigration === 2)
            for (const { id, attemptNo } of await oldClaim(writer, oldAppRt, TYPES[0]!, 1, LEASE_MS)) {
              claimedByOld.push(id);
              await oldHeartbeat(writer, id, oldAppRt, attemptNo, LEASE_MS);
              await oldSucceed(writer, id, oldAppRt, attemptNo, await outputFor(id));
            }
          state.afterMigration++;
        }
        // Pacing only: the order that matters is held by the locks above.
        await new Promise((r) => setTimeout(r, 250));
      }
    })().catch((e) => {
      writeError = e;
      state.running = false;
    });
    await eventually("the previous release's write waits for the migration", async () => {
      const wait = (await lockWaits(watcher)).find((w) => w.pid === writerPid);
      return wait?.blockers.includes(migrationWait.pid) || null;
    });

    // The open transactions commit; the migration copies what they wrote and runs to its end.
    await blocker.query("COMMIT");
    const madeInCreation = await creating;
    await creation.query("COMMIT");
    expect(await migrated, migrateOut).toBe(0);
    state.migrated = true;
    expect(migrateOut).toContain(MIGRATION);
    expect(during.length).toBeGreaterThanOrEqual(1);
    await eventually("the previous release wrote on the migrated tables", async () => state.afterMigration >= 3);
    state.creating = false;
    expect(claimedByOld).toHaveLength(1);

    const checks: string[][] = [];
    const check = async () => {
      const problems = await queueDisagreements(watcher);
      checks.push(problems);
      return problems;
    };
    expect(await check()).toEqual([]);
    const queued = async (ids: string[]) =>
      (await watcher.query(`SELECT "jobId" FROM "JobQueue" WHERE "jobId" = ANY($1)`, [ids])).rowCount;
    const inFlight = (ids: string[]) => ids.filter((id) => !claimedByOld.includes(id));
    // The backfill copied the jobs committed while the migration waited; the triggers, those made after it.
    expect(await queued(inFlight([madeInOpenTx, madeInCreation]))).toBe(
      inFlight([madeInOpenTx, madeInCreation]).length,
    );
    expect(await queued(inFlight(during))).toBe(inFlight(during).length);
    const before = inFlight([...pending, ...future, ...held, expired]);
    expect(before.length).toBeGreaterThanOrEqual(17);
    expect(await queued(before)).toBe(before.length);
    expect(await queued([...finished, oldHeld[0]!, oldHeld[1]!, ...claimedByOld])).toBe(0);

    // This release's app; the previous one keeps its Runtimes' leases alive until it is up.
    app = await startAppServer({
      databaseUrl: url,
      env: { SWEEP_INTERVAL_MS: "1000", JOB_BACKOFF_BASE_MS: "200", JOB_BACKOFF_CAP_MS: "1000" },
    });
    state.running = false;
    await writing;
    expect(writeError).toBeNull();
    expect(state.lostLeases).toEqual([]);
    expect(await check()).toEqual([]);

    // The held jobs' Runtime moves to the new app: its leases are still its own.
    for (const id of held) {
      const beat = await runtimeCall(key.key, id, "heartbeat", {
        runtimeInstanceId: heldRt.runtimeInstanceId,
        attemptNo: 1,
      });
      expect(beat.status, JSON.stringify(beat.body)).toBe(200);
    }
    // The lease lost before the migration is ended by the new app's sweep (or a claim).
    await eventually("the lost lease ended", async () => {
      const job = await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: expired } });
      return job.status === "pending" || null;
    });
    expect(await check()).toEqual([]);
    for (const id of held) {
      const done = await runtimeCall(key.key, id, "result", {
        runtimeInstanceId: heldRt.runtimeInstanceId,
        attemptNo: 1,
        output: outputs.get(id),
      });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
    }
    expect(await check()).toEqual([]);

    // Real Runtimes take everything left.
    runtimes.push(...spawnRuntimes(2, { apiUrl: app.url, apiKey: key.key, delayMs: 20, concurrency: 4 }));
    const all = [...pending, ...future, ...held, ...oldHeld, expired, ...finished, madeInOpenTx, ...during];
    await eventually(
      "every job succeeded",
      async () => {
        await check();
        const left = await getDb().aiRuntimeJob.count({ where: { id: { in: all }, status: { not: "succeeded" } } });
        return left === 0 || null;
      },
      120_000,
    );
    expect(checks.filter((p) => p.length)).toEqual([]);
    expect(await check()).toEqual([]);
    expect(await queued(all)).toBe(0);

    // 0 lost, 0 doubled: one success and one valid result each, events and counters agreeing.
    expect((await expectSucceededOnce(all)).problems).toEqual([]);
    expect(await outcomeViolations(url, all)).toEqual([]);
    // The held leases ran to their end in the attempt they had; the future ones waited for their time.
    const events = await getDb().jobEvent.findMany({ where: { jobId: { in: all } }, orderBy: { id: "asc" } });
    for (const id of held) {
      const success = events.find((e) => e.jobId === id && e.toStatus === "succeeded")!;
      expect([success.actorId, success.attemptNo]).toEqual([heldRt.runtimeInstanceId, 1]);
    }
    const jobs = await getDb().aiRuntimeJob.findMany({ where: { id: { in: [...future, expired] } } });
    for (const id of future) {
      const job = jobs.find((j) => j.id === id)!;
      const locked = events.find((e) => e.jobId === id && e.toStatus === "locked")!;
      expect(locked.createdAt.getTime()).toBeGreaterThanOrEqual(job.runAfter.getTime());
    }
    const lost = jobs.find((j) => j.id === expired)!;
    expect([lost.retryCount, lost.attemptNo]).toEqual([1, 2]);
    expect(
      events.filter((e) => e.jobId === expired && e.toStatus === "expired").map((e) => [e.errorCode, e.actorType]),
    ).toEqual([["JOB_TIMEOUT", "system"]]);
  });
});
