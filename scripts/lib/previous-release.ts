import crypto from "node:crypto";
import type pg from "pg";
import { idAt } from "../../server/jobs/partitions";

/**
 * The job writes of the release before the queue table (prisma/migrations/…_job_queue), as plain
 * SQL in the shapes its code ran: a creation reading the fair turn from the job table, a claim,
 * heartbeat and result as one compare-and-set statement each that writes the job row and its
 * JobEvent together. Nothing here knows of JobQueue: what keeps it is the migration's triggers.
 */

export type OldJob = {
  userId: string;
  jobType: string;
  targetType: string;
  targetId: string;
  snapshotId: string;
  params?: Record<string, unknown>;
  /** Visible from (default: now). */
  runAfter?: Date;
  timeoutSeconds?: number;
};

export type OldHolder = { runtimeInstanceId: string; keyId: string | null };

const ts = (d: Date) => d.toISOString();
let seq = 0;

/** An id as the app makes them: led by its creation time, so the row goes to the present's partition. */
export const jobIdAt = (ms: number) =>
  `${idAt(ms)}${(seq++).toString(36).padStart(4, "0")}${crypto.randomBytes(6).toString("hex")}`;

/** The previous release's creation: the learner's next fair turn read from the job table, the row and its event. */
export async function oldCreate(db: pg.ClientBase, job: OldJob) {
  const at = new Date();
  const id = jobIdAt(at.getTime());
  await db.query(
    `WITH turn AS (
       SELECT GREATEST(
         (SELECT q."queueTurn" FROM "AiRuntimeJob" q WHERE q.status = 'pending' AND q.priority = 0 ORDER BY q."queueTurn" LIMIT 1),
         (SELECT q."queueTurn" + 1 FROM "AiRuntimeJob" q WHERE q.status = 'pending' AND q."userId" = $2 AND q.priority = 0
            ORDER BY q."queueTurn" DESC LIMIT 1),
         0)::int AS n),
     job AS (
       INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, priority, "queueTurn",
         "idempotencyKey", params, "inputHash", "runAfter", "timeoutSeconds", "outputSchemaVersion", "createdAt", "updatedAt")
       SELECT $1, $2, $3::"JobType", $4::"TargetType", $5, $6, 'pending', 0, turn.n, $1, $7::jsonb, md5($1), $8::timestamp(3),
         $9, 'v2', $10::timestamp(3), $10::timestamp(3)
       FROM turn RETURNING id)
     INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
     SELECT id, NULL, 'pending', 'learner', $2, 0, $10::timestamp(3) FROM job`,
    [
      id,
      job.userId,
      job.jobType,
      job.targetType,
      job.targetId,
      job.snapshotId,
      JSON.stringify(job.params ?? {}),
      ts(job.runAfter ?? at),
      job.timeoutSeconds ?? 120,
      ts(at),
    ],
  );
  return id;
}

/**
 * One transition as the previous state machine ran it: lock the candidate rows (by id, fenced on
 * status and a guard; or a batch in queue order, SKIP LOCKED), update them, write their events.
 * In `where` and `set`, $1 is the time, $2 the actor, $3… `params`. Returns the rows changed, with
 * their attempt numbers (none when the guard failed).
 */
async function oldTransition(
  db: pg.ClientBase,
  o: { where: string; from: string[]; batch?: string; to: string; set: string; actor: string; params: unknown[] },
) {
  const at = ts(new Date());
  const { rows } = await db.query<{ id: string; attemptNo: number }>(
    `WITH target AS (
       SELECT j.id, j.status AS "fromStatus" FROM "AiRuntimeJob" j
       WHERE ${o.where} AND j.status IN (${o.from.map((s) => `'${s}'`).join(", ")})
       ${o.batch ? `${o.batch} FOR UPDATE SKIP LOCKED` : "FOR UPDATE"}),
     upd AS (
       UPDATE "AiRuntimeJob" j SET status = '${o.to}', ${o.set}, "updatedAt" = $1::timestamp(3)
       FROM target t WHERE j.id = t.id
       RETURNING j.id, j.status, j."attemptNo", t."fromStatus"),
     ev AS (
       INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
       SELECT u.id, u."fromStatus", u.status, 'runtime', $2, u."attemptNo", $1::timestamp(3) FROM upd u
       WHERE u."fromStatus" IS DISTINCT FROM u.status)
     SELECT id, "attemptNo" FROM upd`,
    [at, o.actor, ...o.params],
  );
  return rows;
}

/** The lease a lock or claim sets: $1 the time, $3 the key, $4 the lease's end. */
const LOCK_SET = `"attemptNo" = j."attemptNo" + 1, "lockedBy" = $2, "lockedByKeyId" = $3, "lockedAt" = $1::timestamp(3),
  "lockUntil" = $4::timestamp(3), "leaseCheckAt" = $4::timestamp(3), stage = NULL, progress = 0, "progressMessage" = NULL`;

/** The previous release's lock of one job: a lease of `leaseMs` from now (in the past for a lease already lost). */
export async function oldLock(db: pg.ClientBase, jobId: string, holder: OldHolder, leaseMs: number) {
  const [row] = await oldTransition(db, {
    where: `j.id = $5 AND j."runAfter" <= $1::timestamp(3)`,
    from: ["pending"],
    to: "locked",
    set: LOCK_SET,
    actor: holder.runtimeInstanceId,
    params: [holder.keyId, ts(new Date(Date.now() + leaseMs)), jobId],
  });
  return row?.attemptNo ?? null;
}

/** The previous release's claim: up to `limit` visible pending jobs of `jobType` in queue order: their ids and attempts. */
export function oldClaim(db: pg.ClientBase, holder: OldHolder, jobType: string, limit: number, leaseMs: number) {
  return oldTransition(db, {
    where: `j."runAfter" <= $1::timestamp(3) AND NOT j."cancelRequested" AND j."jobType" = $5::"JobType"`,
    from: ["pending"],
    batch: `ORDER BY j.priority, j."queueTurn", j."createdAt" LIMIT ${Math.max(1, Math.floor(limit))}`,
    to: "locked",
    set: LOCK_SET,
    actor: holder.runtimeInstanceId,
    params: [holder.keyId, ts(new Date(Date.now() + leaseMs)), jobType],
  });
}

/** The previous release's heartbeat: the holder's lease extended by `leaseMs` (capped by the timeout), locked → running. */
export async function oldHeartbeat(
  db: pg.ClientBase,
  jobId: string,
  holder: OldHolder,
  attemptNo: number,
  leaseMs: number,
) {
  const [row] = await oldTransition(db, {
    where: `j.id = $3 AND j."lockedBy" = $2 AND j."attemptNo" = $4 AND j."lockUntil" > $1::timestamp(3)`,
    from: ["locked", "running"],
    to: "running",
    set: `"startedAt" = CASE WHEN j.status = 'locked' THEN $1::timestamp(3) ELSE j."startedAt" END,
      "lockUntil" = LEAST($5::timestamp(3), j."lockedAt" + make_interval(secs => j."timeoutSeconds")),
      "leaseCheckAt" = LEAST($5::timestamp(3), j."lockedAt" + make_interval(secs => j."timeoutSeconds")), progress = 50`,
    actor: holder.runtimeInstanceId,
    params: [jobId, attemptNo, ts(new Date(Date.now() + leaseMs))],
  });
  return row?.attemptNo ?? null;
}

/** The previous release's accepted result: the job succeeded and its result row, in one transaction. */
export async function oldSucceed(
  db: pg.ClientBase,
  jobId: string,
  holder: OldHolder,
  attemptNo: number,
  output: unknown,
) {
  const at = new Date();
  await db.query("BEGIN");
  try {
    const done = await oldTransition(db, {
      where: `j.id = $3 AND j."lockedBy" = $2 AND j."attemptNo" = $4 AND j."lockUntil" > $1::timestamp(3)`,
      from: ["locked", "running"],
      to: "succeeded",
      set: `"finishedAt" = $1::timestamp(3), progress = 100, "lockedBy" = NULL, "lockUntil" = NULL, "leaseCheckAt" = NULL`,
      actor: holder.runtimeInstanceId,
      params: [jobId, attemptNo],
    });
    if (!done.length) throw new Error(`the previous release lost the lease of ${jobId}`);
    const body = JSON.stringify(output);
    await db.query(
      `INSERT INTO "AiRuntimeResult" (id, "jobId", "attemptNo", output, "outputHash", "outputSchemaVersion", "createdAt")
       VALUES ($1, $2, $3, $4::jsonb, $5, 'v2', $6::timestamp(3))`,
      [
        `r${crypto.randomBytes(12).toString("hex")}`,
        jobId,
        attemptNo,
        body,
        crypto.createHash("sha256").update(body).digest("hex"),
        ts(at),
      ],
    );
    await db.query("COMMIT");
  } catch (e) {
    await db.query("ROLLBACK").catch(() => {});
    throw e;
  }
}
