import { readFileSync } from "node:fs";
import pg from "pg";
import { ensurePartitions, idAt, listSpans, PARTITIONED, partitionDays } from "../../server/jobs/partitions";

/**
 * BENCH_SETUP_SQL="stmt;stmt" (an experiment, e.g. dropping or narrowing the job table's indexes): run
 * on a freshly migrated bench database before anything else; pg-boss makes its own schema later and
 * is untouched. `npm run bench` and `npm run bench:wal` both take it; BENCH_SETUP_SQL_FILE names a file run
 * whole, as one simple query (DO blocks and the like).
 */
export async function runSetupSql(db: pg.Client) {
  for (const stmt of (process.env.BENCH_SETUP_SQL ?? "").split(";").filter((s) => s.trim())) await db.query(stmt);
  if (process.env.BENCH_SETUP_SQL_FILE) await db.query(readFileSync(process.env.BENCH_SETUP_SQL_FILE, "utf8"));
}

/**
 * Bench data straight in SQL (the setup is not what is measured): one learner with consent and a
 * snapshot, then jobs in bulk that reference it. Each job has its own idempotency key, as
 * separate requests would.
 */
export async function seedBenchUser(db: pg.Client) {
  // bench_user owns the bulk jobs; bench_user_b is the second learner of the fair-order section.
  for (const id of ["bench_user", "bench_user_b"]) {
    await db.query(
      `INSERT INTO "User" (id, email, name, role, "emailVerified", "createdAt", "updatedAt")
      VALUES ($1, $1 || '@example.test', 'Bench', 'learner', false, now(), now()) ON CONFLICT DO NOTHING`,
      [id],
    );
    await db.query(
      `INSERT INTO "AiConsent" ("userId", granted, "apiKeyMode", "updatedAt") VALUES ($1, true, 'platform_key', now()) ON CONFLICT DO NOTHING`,
      [id],
    );
  }
  const content = {
    version: 1,
    learner: { id: "bench_user", name: "Bench" },
    target: { type: "user", id: "bench_user", title: "Bench" },
    materials: [],
    knowledgePoints: [],
    quizAttempts: [],
    studySessions: [],
  };
  await db.query(
    `INSERT INTO "Snapshot" (id, "userId", "targetType", "targetId", "contentHash", content, "createdAt")
     VALUES ('bench_snapshot', 'bench_user', 'user', 'bench_user', 'bench', $1, now()) ON CONFLICT DO NOTHING`,
    [JSON.stringify(content)],
  );
}

let batch = 0;
export async function insertJobs(
  db: pg.Client,
  n: number,
  opts: { status?: string; lockedBy?: string; lockUntilSql?: string; finished?: boolean; jobType?: string } = {},
) {
  const tag = `${Date.now()}_${batch++}`;
  // Ids as the app makes them (a cuid led by its creation time), so rows go to the present's partitions.
  const idPrefix = `${idAt(Date.now())}${(batch % 1296).toString(36).padStart(2, "0")}`;
  const status = opts.status ?? "pending";
  await db.query(
    // queueTurn as creation would give one learner's jobs queued in a row: 0, 1, 2, …
    `INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey",
       params, "runAfter", "createdAt", "updatedAt", "attemptNo", "lockedBy", "lockedAt", "lockUntil", "leaseCheckAt", "finishedAt", "queueTurn", "outputSchemaVersion")
     SELECT '${idPrefix}' || lpad(g::text, 10, '0'), 'bench_user', $4::"JobType", 'user', 'bench_user', 'bench_snapshot', $1::"JobStatus", 'h', 'k_${tag}_' || g,
       '{}', now() - interval '1 second', now() - interval '1 second' + g * interval '1 microsecond', now(),
       ${opts.lockedBy ? 1 : 0}, $2, ${opts.lockedBy ? "now() - interval '10 minutes'" : "NULL"}, ${opts.lockUntilSql ?? "NULL"}, ${opts.lockUntilSql ?? "NULL"},
       ${opts.finished ? "now() - interval '1 day'" : "NULL"}, g - 1, 'v2'
     FROM generate_series(1, $3::int) g`,
    [status, opts.lockedBy ?? null, n, opts.jobType ?? "learning_state_analysis"],
  );
}

export async function clearJobs(db: pg.Client) {
  await db.query(`TRUNCATE "AiRuntimeJob" CASCADE`);
}

/**
 * A bench database is migrated just before it is filled, so the events and results of every past
 * id would sit in the `_before` partitions. With the tables empty, those and the spans are made
 * again so that spans cover the last `days` days too, as on an instance that has run that long.
 */
export async function spansBack(db: pg.Client, days: number) {
  const width = partitionDays() * 86_400_000;
  const start = Math.floor((Date.now() - days * 86_400_000) / width) * width;
  const spans = await listSpans(db);
  for (const { table } of PARTITIONED) {
    for (const part of [...spans.map((s) => s.name.slice("JobEvent".length)), "_before"]) {
      await db.query(`ALTER TABLE "${table}" DETACH PARTITION "${table}${part}"`);
      await db.query(`DROP TABLE "${table}${part}"`);
    }
    await db.query(
      `CREATE TABLE "${table}_before" PARTITION OF "${table}" FOR VALUES FROM (MINVALUE) TO ('${idAt(start)}')`,
    );
  }
  // As the migrations made them: each `_before` of events and results refers to the jobs' `_before`.
  for (const table of ["JobEvent", "AiRuntimeResult"])
    await db.query(
      `ALTER TABLE "${table}_before" ADD CONSTRAINT "${table}_before_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob_before" (id) ON DELETE CASCADE ON UPDATE CASCADE`,
    );
  await ensurePartitions(db);
}

/**
 * BENCH_HISTORY_DAYS: the time partitions of an instance that has run that long (one per
 * JOB_PARTITION_DAYS; 90 days of retention at 7 days is 13 past spans and 2 ahead), so every
 * statement pays for as many partitions as in production. Each past span keeps one job that
 * finished just now, so retention at the app's start leaves the spans in place.
 */
export async function historySpans(db: pg.Client, days: number) {
  await db.query(`TRUNCATE "AiRuntimeJob" CASCADE`);
  await spansBack(db, days);
  for (const span of await listSpans(db)) {
    if (span.from > Date.now()) continue;
    const id = `${idAt(span.from)}keep`;
    await db.query(
      `INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", status, "inputHash", "finishedAt", "createdAt", "updatedAt")
       VALUES ($1, 'bench_user', 'learning_state_analysis', 'user', 'bench_user', 'succeeded', 'keep', now(), now(), now())`,
      [id],
    );
    await db.query(
      `INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "attemptNo", "createdAt") VALUES ($1, 'running', 'succeeded', 'runtime', 1, now())`,
      [id],
    );
  }
}
