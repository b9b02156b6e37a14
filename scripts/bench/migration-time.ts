import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { onOwnDb } from "./own-db";
import { insertJobs, seedBenchUser } from "./setup";
import { loadAverage } from "./cpu";
import { oldClaim, oldCreate, type OldHolder } from "../lib/previous-release";

/**
 * `npm run bench:migration -- <migration folder name>`: how long one migration's script takes on a
 * live instance's job table, and how long the previous release's writes wait for it, on its own
 * server (BENCH_MIGRATION_PG_PORT, default 54363). The database is migrated to the state before
 * that migration (so a script that cannot run twice is measured too), then filled with
 * BENCH_MIGRATION_JOBS jobs (default 1,000,000): half a percent pending, a tenth of a percent held
 * with live leases, the rest finished with a result and a usage row; a fifth with non-empty params, as
 * generation jobs have. The
 * script then runs as the deploy runs it (one query, one transaction) and, once it holds a lock on
 * the job table, two writes of the previous release start beside it, each on its own connection
 * and in the SQL that release ran on the layout before the migration
 * (scripts/lib/previous-release.ts): a new job's creation and a claim. It prints the script's time,
 * how long each write took, and the time of that release's next creation and claim on the
 * migrated layout.
 */
const name = process.argv[2];
if (!name) throw new Error("usage: npm run bench:migration -- <prisma/migrations folder name>");
const script = fs.readFileSync(path.join("prisma/migrations", name, "migration.sql"), "utf8");
const JOBS = Number(process.env.BENCH_MIGRATION_JOBS ?? 1_000_000);
const PENDING = Math.max(1, Math.round(JOBS * 0.005));
const HELD = Math.max(1, Math.round(JOBS * 0.001));
const port = Number(process.env.BENCH_MIGRATION_PG_PORT ?? 54363);
const holder: OldHolder = { runtimeInstanceId: "migration-probe", keyId: null };
const newJob = {
  userId: "bench_user",
  jobType: "learning_state_analysis",
  targetType: "user",
  targetId: "bench_user",
  snapshotId: "bench_snapshot",
};

/** Whether backend `pid` holds a lock on the job table or one of its partitions (a migration that never takes one: done). */
async function holdsJobLock(watch: pg.Client, pid: number) {
  const { rows } = await watch.query<{ held: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
       WHERE l.pid = $1 AND l.granted AND c.relname LIKE 'AiRuntimeJob%'
         AND l.mode IN ('ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')) AS held`,
    [pid],
  );
  return rows[0]!.held;
}

async function timed<T>(fn: () => Promise<T>) {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

await onOwnDb({ name: "migration", port, migrateBefore: name }, async (db, server) => {
  await seedBenchUser(db);
  const fill = async (n: number, opts: Parameters<typeof insertJobs>[2]) => {
    for (let done = 0; done < n; done += 100_000) await insertJobs(db, Math.min(100_000, n - done), opts);
  };
  await fill(JOBS - PENDING - HELD, { status: "succeeded", finished: true });
  await fill(HELD, { status: "running", lockedBy: "bench-runtime", lockUntilSql: "now() + interval '10 minutes'" });
  await fill(PENDING, {});
  await db.query(`UPDATE "AiRuntimeJob" SET params = '{"count": 5}' WHERE right(id, 1) IN ('1', '6')`);
  // Each finished job's result and usage row, as the results path writes them: what a migration of those tables rebuilds.
  await db.query(`INSERT INTO "AiRuntimeResult" (id, "jobId", "attemptNo", output, "outputHash", "outputSchemaVersion", "createdAt")
    SELECT 'r' || id, id, 1, '{"summary": "ok", "overallMastery": 0.5}', md5(id), 'v2', "finishedAt" FROM "AiRuntimeJob" WHERE status = 'succeeded'`);
  await db.query(`INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", "promptTokens", "completionTokens", outcome, "createdAt")
    SELECT 'u' || id, id, 1, "userId", "jobType", "apiKeyMode", 1200, 300, 'succeeded', "finishedAt" FROM "AiRuntimeJob" WHERE status = 'succeeded'`);
  await db.query(`VACUUM ANALYZE`);

  const connect = async () => {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    return c;
  };
  const [creator, claimer, watch] = [await connect(), await connect(), await connect()];
  try {
    // Warm: each write once before, on the layout before the migration.
    await oldCreate(creator, newJob);
    if ((await oldClaim(claimer, holder, "learning_state_analysis", 1, 60_000)).length !== 1)
      throw new Error("the claim before the migration took no job");

    const pid = (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    let done = false;
    const migration = timed(() => db.query(script)).finally(() => (done = true));
    while (!done && !(await holdsJobLock(watch, pid))) await new Promise((r) => setImmediate(r));
    const create = timed(() => oldCreate(creator, newJob));
    const claim = timed(() => oldClaim(claimer, holder, "learning_state_analysis", 1, 60_000));
    const [m, c, k] = await Promise.all([migration, create, claim]);
    if (k.value.length !== 1) throw new Error("the claim beside the migration took no job");
    // The previous release's writes again, now on the migrated layout (its instances still run during a rollout).
    const createAfter = await timed(() => oldCreate(creator, newJob));
    const claimAfter = await timed(() => oldClaim(claimer, holder, "learning_state_analysis", 1, 60_000));
    console.log(
      `[migration] ${name} on ${JOBS} jobs (${PENDING} pending, ${HELD} held): ${Math.round(m.ms)} ms; ` +
        `started once it held its lock, a new job's creation took ${Math.round(c.ms)} ms and a claim ${Math.round(k.ms)} ms; ` +
        `then, on the migrated layout, its next creation ${Math.round(createAfter.ms)} ms and claim ${Math.round(claimAfter.ms)} ms ` +
        `(load average ${loadAverage().join(" ")})`,
    );
  } finally {
    await Promise.all([creator, claimer, watch].map((c) => c.end().catch(() => {})));
  }
});
