import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { verifyOutcome } from "../../scripts/chaos/verify";
import { closeDb, getDb } from "@/server/db";
import { setCredential } from "@/server/credentials";
import { ensurePartitions } from "@/server/jobs/partitions";
import { decryptSecret } from "@/server/security/secret-box";
import { createServiceKey, SCOPES } from "@/server/platform/service-keys";
import { createRuntimeKey, FULL_SCOPE } from "@/server/runtime-keys";
import { createLearner, jobRow, uid, type Learner } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { runScript } from "../helpers/cli";
import { startFakeOpenAI } from "../providers/fake-openai-server";
import { spawnRuntime, type RuntimeProcess } from "./runtime-process";
import { countStatus, createJobs, expectSucceededOnce } from "./jobs";
import { pgBinDir, runPgTool, startPgServer, type PgServer } from "./pg-tools";

/**
 * docs/contract.md#deployment-shapes, backup and restore: `pg_dump` of a live instance while a Runtime holds jobs, restored
 * into a fresh database on which a second instance starts. The held jobs come back through the
 * lease rules and finish once; learners and their data (materials, knowledge points, activity,
 * consent, an encrypted key) are all there; an erasure made after the dump is applied again from
 * the ledger (`npm run erasures:reapply`) before the restored instance starts.
 *
 * The server is Debian's PostgreSQL with its own pg_dump and pg_restore (pg-tools.ts): the
 * embedded PostgreSQL 17 ships no pg_dump, and a pg_dump refuses a server newer than itself.
 * The Runtime holds its jobs in a model call the fake DeepSeek server never answers.
 */

const bin = pgBinDir();
let server: PgServer;
let live: AppServer | undefined;
let restored: AppServer | undefined;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
const runtimes: RuntimeProcess[] = [];
const work = fs.mkdtempSync(path.join(os.tmpdir(), "ajr-backup-"));
/** Short leases and a quick sweep, so passed leases are seen in seconds. */
const APP_ENV = {
  JOB_LEASE_SECONDS: "3",
  SWEEP_INTERVAL_MS: "500",
  JOB_BACKOFF_BASE_MS: "200",
  JOB_BACKOFF_CAP_MS: "1000",
  RUNTIME_POLL_INTERVAL_MS: "200",
};
const LEARNER_KEY = "sk-learner-own-key-7f3a";

beforeAll(async () => {
  // The same key for this process, both instances and the commands (inherited through process.env).
  process.env.APP_ENCRYPTION_KEY = "5e".repeat(32);
  // Jobs made here never reach their execution timeout during the test: only leases end attempts.
  process.env.JOB_TIMEOUT_SECONDS = "3600";
  server = await startPgServer(bin, await freePort(56000, 56999));
  const admin = new pg.Client({ connectionString: server.url("postgres") });
  await admin.connect();
  await admin.query("CREATE DATABASE ajr_live");
  await admin.end();
  process.env.DATABASE_URL = server.url("ajr_live");
  const migrated = await runScript("scripts/migrate.ts", ["deploy"]);
  if (migrated.status !== 0) throw new Error(`migrations failed: ${migrated.stderr}`);
  fake = await startFakeOpenAI([{ hang: true }]);
  // A 20 s lease on the live instance: a heartbeat late on a busy machine never loses the held
  // jobs before the dump; in the copy those leases pass at most 20 s after it.
  live = await startAppServer({ databaseUrl: server.url("ajr_live"), env: { ...APP_ENV, JOB_LEASE_SECONDS: "20" } });
});

afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
  await restored?.stop();
  await live?.stop();
  await fake?.close();
  await closeDb();
  await server?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

function runtime(appUrl: string, key: string, env: Record<string, string> = {}) {
  const r = spawnRuntime({ apiUrl: appUrl, apiKey: key, env });
  runtimes.push(r);
  return r;
}

async function platformCall(app: AppServer, key: string, method: string, p: string, body?: unknown) {
  const res = await fetch(`${app.url}/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A learner the platform made through its API, with a material, activity, consent and their own key. */
async function platformLearner(app: AppServer, key: string) {
  const ext = uid("ext");
  expect((await platformCall(app, key, "PUT", `/learners/${ext}`, { name: "Backed Up", locale: "en" })).status).toBe(
    201,
  );
  const material = {
    title: "Cell biology",
    text: "Mitochondria make ATP. Ribosomes make proteins.",
    knowledgePoints: [
      { externalId: "kp-atp", title: "ATP" },
      { externalId: "kp-ribo", title: "Ribosomes" },
    ],
  };
  expect((await platformCall(app, key, "PUT", `/learners/${ext}/materials/m1`, material)).status).toBe(201);
  const activity = {
    quizAttempts: [
      { externalId: "qa1", knowledgePointExternalId: "kp-atp", correct: true, answeredAt: "2026-11-30T10:00:00Z" },
    ],
    studySessions: [{ externalId: "ss1", materialExternalId: "m1", startedAt: "2026-11-30T09:00:00Z", minutes: 30 }],
  };
  expect((await platformCall(app, key, "POST", `/learners/${ext}/activity`, activity)).status).toBe(200);
  const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
  await getDb().aiConsent.upsert({
    where: { userId: user.id },
    create: { userId: user.id, granted: true, grantedAt: new Date(), apiKeyMode: "user_deepseek_key" },
    update: { granted: true, apiKeyMode: "user_deepseek_key" },
  });
  await setCredential(user.id, LEARNER_KEY);
  return { ext, userId: user.id };
}

/** What a learner's export must show again after the restore: everything but the jobs, which move on. */
function learnerData(exported: Record<string, unknown>) {
  const { account, consent, credentials, materials, knowledgePoints, quizAttempts, studySessions } = exported;
  return { account, consent, credentials, materials, knowledgePoints, quizAttempts, studySessions };
}

/** Each job's partition, by the table that holds its row. */
async function partitionsOf(ids: string[]) {
  const rows = await getDb().$queryRawUnsafe<{ id: string; part: string }[]>(
    `SELECT id, tableoid::regclass::text AS part FROM "AiRuntimeJob" WHERE id = ANY($1) ORDER BY id`,
    ids,
  );
  return rows;
}

describe("[SYSTEM] backup and restore", () => {
  it("pg_dump while a Runtime holds jobs, restore, start: held jobs come back through the lease rules and finish once; learners and their data are there; a later erasure is applied again", async () => {
    const runtimeKey = (await createRuntimeKey(uid("key"), undefined, FULL_SCOPE)).key;
    const serviceKey = (await createServiceKey(uid("svc"), SCOPES, "test")).key;
    const learners: Learner[] = [await createLearner(), await createLearner()];
    const person = await platformLearner(live!, serviceKey);
    const erased = await platformLearner(live!, serviceKey);

    // Three jobs finished before the dump, by a Runtime that then leaves.
    const done = await createJobs(learners, 3);
    const first = runtime(live!.url, runtimeKey);
    await eventually("the first 3 succeeded", async () => (await countStatus(done, "succeeded")) === 3);
    expect((await first.kill("SIGTERM")).code).toBe(0);

    // Five more: a Runtime takes two (its two slots) into a model call that is never answered.
    const queued = await createJobs(learners, 5);
    const holder = runtime(live!.url, runtimeKey, {
      RUNTIME_PROVIDER: "deepseek",
      DEEPSEEK_API_KEY: "sk-platform",
      DEEPSEEK_BASE_URL: fake.url,
      DEEPSEEK_TIMEOUT_MS: "3600000",
      RUNTIME_CONCURRENCY: "2",
    });
    const heldRows = await eventually("two jobs held in model inference", async () => {
      const rows = await getDb().aiRuntimeJob.findMany({
        where: { id: { in: queued }, status: "running", lockedBy: holder.instanceId, stage: "model_inference" },
      });
      return rows.length === 2 && fake.requests.length === 2 ? rows : null;
    });
    const held = heldRows.map((j) => j.id);
    const waiting = queued.filter((id) => !held.includes(id));
    expect(await countStatus(waiting, "pending")).toBe(3);
    const before = {
      person: (await platformCall(live!, serviceKey, "GET", `/learners/${person.ext}/export`)).body,
      partitions: await partitionsOf([...done, ...queued]),
      results: await getDb().aiRuntimeResult.findMany({ where: { jobId: { in: done } }, orderBy: { jobId: "asc" } }),
    };

    // The backup, of the live database, while the app serves and the Runtime holds its leases.
    const dump = path.join(work, "live.dump");
    await runPgTool(bin, "pg_dump", ["--format=custom", `--file=${dump}`, `--dbname=${server.url("ajr_live")}`]);
    expect(await countStatus(held, "running")).toBe(2);

    // After the dump, a learner is erased on the live instance; the ledger is kept outside it.
    expect((await platformCall(live!, serviceKey, "DELETE", `/learners/${erased.ext}`)).status).toBe(200);
    const ledger = await runScript("scripts/erasures.ts", ["export"]);
    expect(ledger.status).toBe(0);
    const ledgerFile = path.join(work, "erasures.jsonl");
    fs.writeFileSync(ledgerFile, ledger.stdout);

    // Restore into a fresh database.
    const admin = new pg.Client({ connectionString: server.url("postgres") });
    await admin.connect();
    await admin.query("CREATE DATABASE ajr_restored");
    await admin.end();
    await runPgTool(bin, "pg_restore", [
      "--no-owner",
      "--no-privileges",
      "--exit-on-error",
      `--dbname=${server.url("ajr_restored")}`,
      dump,
    ]);
    await closeDb();
    process.env.DATABASE_URL = server.url("ajr_restored");

    // The erased learner is back in the copy until the ledger is applied again.
    expect(await getDb().user.count({ where: { id: erased.userId } })).toBe(1);
    const dry = await runScript("scripts/erasures.ts", ["reapply", "--dry-run", ledgerFile]);
    expect(dry.stdout).toContain("1 learners here would be erased again");
    expect(await getDb().user.count({ where: { id: erased.userId } })).toBe(1);
    const reapplied = await runScript("scripts/erasures.ts", ["reapply", ledgerFile]);
    expect(reapplied.status).toBe(0);
    expect(reapplied.stdout).toContain("1 learners erased again");
    expect(await getDb().user.count({ where: { id: erased.userId } })).toBe(0);
    expect(await getDb().material.count({ where: { userId: erased.userId } })).toBe(0);

    // Every job in the partition it was in; the spans ahead are all there (nothing left to make).
    expect(await partitionsOf([...done, ...queued])).toEqual(before.partitions);
    expect(before.partitions.every((p) => /^"AiRuntimeJob_p\d{12}"$/.test(p.part))).toBe(true);
    expect(await ensurePartitions()).toEqual({ made: [], skipped: [] });

    // The copy says what the live database said at the dump: the two held, three waiting.
    expect(await countStatus(held, "running")).toBe(2);
    expect(await countStatus(waiting, "pending")).toBe(3);

    // The restored instance starts with no Runtime: only its sweep can end the passed leases.
    restored = await startAppServer({ databaseUrl: server.url("ajr_restored"), env: APP_ENV });
    await eventually("the sweep put the held jobs back", async () => (await countStatus(queued, "pending")) === 5);
    const rescuer = runtime(restored.url, runtimeKey);
    await eventually("all 8 succeeded", async () => (await countStatus([...done, ...queued], "succeeded")) === 8);

    const { problems } = await expectSucceededOnce([...done, ...queued]);
    expect(problems).toEqual([]);
    const check = new pg.Client({ connectionString: server.url("ajr_restored") });
    await check.connect();
    try {
      const scope = `j.id IN (${[...done, ...queued].map((id) => `'${id}'`).join(", ")})`;
      const outcome = await verifyOutcome(check, 8, scope);
      expect(outcome.violations).toEqual([]);
      expect(outcome.succeeded).toBe(8);
    } finally {
      await check.end();
    }
    for (const id of held) {
      const row = await jobRow(id);
      expect(row).toMatchObject({ attemptNo: 2, retryCount: 1 });
      expect(row.events.map((e) => [e.fromStatus, e.toStatus, e.actorId]).slice(1)).toEqual([
        ["pending", "locked", holder.instanceId],
        ["locked", "running", holder.instanceId],
        ["running", "expired", "sweep"],
        ["expired", "pending", "sweep"],
        ["pending", "locked", rescuer.instanceId],
        ["locked", "running", rescuer.instanceId],
        ["running", "succeeded", rescuer.instanceId],
      ]);
      expect(row.events[3]!.errorCode).toBe("JOB_TIMEOUT");
    }
    for (const id of waiting) expect(await jobRow(id)).toMatchObject({ attemptNo: 1, retryCount: 0 });
    // Finished before the dump: not run again, the same results.
    expect(
      await getDb().aiRuntimeResult.findMany({ where: { jobId: { in: done } }, orderBy: { jobId: "asc" } }),
    ).toEqual(before.results);

    // The learner's data, through the restored instance's API, as the live one showed it.
    const after = await platformCall(restored, serviceKey, "GET", `/learners/${person.ext}/export`);
    expect(after.status).toBe(200);
    expect(learnerData(after.body)).toEqual(learnerData(before.person));
    expect(learnerData(after.body).credentials).toEqual([expect.objectContaining({ last4: LEARNER_KEY.slice(-4) })]);
    const stored = await getDb().userCredential.findFirstOrThrow({ where: { userId: person.userId, deletedAt: null } });
    expect(decryptSecret(stored.ciphertext)).toBe(LEARNER_KEY);
    expect((await platformCall(restored, serviceKey, "GET", `/learners/${erased.ext}/export`)).status).toBe(404);

    // The old instance and its Runtime were never touched by the copy: there the two are still held.
    await closeDb();
    process.env.DATABASE_URL = server.url("ajr_live");
    expect(await countStatus(held, "running")).toBe(2);
    expect(holder.alive()).toBe(true);
  });
});
