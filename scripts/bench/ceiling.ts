import pg from "pg";

/**
 * The ceiling: the same claim + complete in raw SQL from one process, one job at a time, no HTTP,
 * no JobEvent, no validation — what the database alone allows (`FOR UPDATE SKIP LOCKED`).
 */
export async function rawCeiling(url: string, jobs: number) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  let done = 0;
  const started = performance.now();
  for (;;) {
    const { rows } = await db.query(
      `UPDATE "AiRuntimeJob" SET status = 'locked', "attemptNo" = "attemptNo" + 1, "lockedBy" = 'raw', "lockedAt" = now(), "lockUntil" = now() + interval '60 seconds'
       WHERE id = (SELECT id FROM "AiRuntimeJob" WHERE status = 'pending' ORDER BY priority, "createdAt" LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
    );
    if (!rows.length) break;
    await db.query(
      `WITH upd AS (UPDATE "AiRuntimeJob" SET status = 'succeeded', "finishedAt" = now(), "lockedBy" = NULL, "lockUntil" = NULL WHERE id = $1 RETURNING id, "attemptNo")
       INSERT INTO "AiRuntimeResult" (id, "jobId", "attemptNo", output, "outputHash", "outputSchemaVersion")
       SELECT gen_random_uuid()::text, id, "attemptNo", '{}', 'h', 'v1' FROM upd`,
      [rows[0].id],
    );
    done++;
  }
  const elapsedMs = performance.now() - started;
  await db.end();
  if (done !== jobs) throw new Error(`raw ceiling processed ${done} of ${jobs}`);
  return { jobs: done, elapsedMs, jobsPerSecond: (done / elapsedMs) * 1000 };
}
