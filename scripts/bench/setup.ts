import pg from "pg";

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
  const status = opts.status ?? "pending";
  await db.query(
    // queueTurn as creation would give one learner's jobs queued in a row: 0, 1, 2, …
    `INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey",
       params, "runAfter", "createdAt", "updatedAt", "attemptNo", "lockedBy", "lockedAt", "lockUntil", "leaseCheckAt", "finishedAt", "queueTurn")
     SELECT 'b_${tag}_' || g, 'bench_user', $4::"JobType", 'user', 'bench_user', 'bench_snapshot', $1::"JobStatus", 'h', 'k_${tag}_' || g,
       '{}', now() - interval '1 second', now() - interval '1 second' + g * interval '1 microsecond', now(),
       ${opts.lockedBy ? 1 : 0}, $2, ${opts.lockedBy ? "now() - interval '10 minutes'" : "NULL"}, ${opts.lockUntilSql ?? "NULL"}, ${opts.lockUntilSql ?? "NULL"},
       ${opts.finished ? "now() - interval '1 day'" : "NULL"}, g - 1
     FROM generate_series(1, $3::int) g`,
    [status, opts.lockedBy ?? null, n, opts.jobType ?? "learning_state_analysis"],
  );
}

export async function clearJobs(db: pg.Client) {
  await db.query(`TRUNCATE "AiRuntimeJob" CASCADE`);
}
