import { Prisma } from "../generated/prisma/client";
import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";
import { recordAudit } from "../audit";
import { AppError } from "../errors";
import { HELD_STATUSES } from "./constants";
import { statusList } from "./status-sql";
import { notify, RETURNING, transition, type Actor } from "./state-machine";

/**
 * Cancel (docs/contract.md#consent-credentials-and-cancellation): pending → cancelled at once; locked/running → cancelRequested, which the
 * Runtime learns on its next heartbeat. `ownerId` limits a learner to their own jobs; another
 * learner's job is reported as not found. An admin's cancel is audited in the same transaction
 * as the change: the row exists exactly when the cancel committed.
 */
export async function cancelJob(jobId: string, actor: Actor, opts: { ownerId?: string } = {}) {
  const db = getDb();
  for (let tries = 0; tries < 3; tries++) {
    const job = await db.aiRuntimeJob.findUnique({
      where: { id: jobId },
      select: { status: true, userId: true, cancelRequested: true },
    });
    if (!job || (opts.ownerId && job.userId !== opts.ownerId))
      throw new AppError("JOB_NOT_FOUND", `job ${jobId} not found`);
    if (job.status !== "pending" && !HELD_STATUSES.includes(job.status))
      throw new AppError("JOB_NOT_CANCELLABLE", `job is already ${job.status}`, { status: job.status });
    const answer =
      job.status === "pending"
        ? { status: "cancelled" as const, cancelRequested: false }
        : { status: job.status, cancelRequested: true };
    const done = await db.$transaction(async (tx) => {
      const where = Prisma.sql`j.id = ${jobId}`;
      const rows = job.status === "pending" ? await cancelPending(tx, where, actor) : await requestCancel(tx, where);
      if (!rows.length) return false; // taken or changed meanwhile: look again
      if (actor.type === "admin")
        await recordAudit(
          { actorId: actor.id ?? "admin", action: "job.cancel", scope: { jobId, ...answer }, count: 1 },
          tx,
        );
      return true;
    });
    if (done) return answer;
  }
  throw new AppError("JOB_NOT_CANCELLABLE", "job kept changing; try again");
}

export function cancelPending(db: DbOrTx, where: Prisma.Sql, actor: Actor) {
  const at = now();
  return transition(db, {
    action: "cancelPending",
    where,
    to: Prisma.sql`'cancelled'`,
    set: Prisma.sql`"finishedAt" = ${at}::timestamp(3), "errorCode" = 'CANCELLED', "errorMessage" = ${`cancelled by ${actor.type}`}`,
    eventErrorCode: Prisma.sql`'CANCELLED'`,
    actor,
    now: at,
  });
}

/** Not a status change, so no JobEvent; the push still tells watchers. */
export function requestCancel(db: DbOrTx, where: Prisma.Sql) {
  const at = now();
  return db.$queryRaw<{ id: string }[]>`
    WITH upd AS (
      UPDATE "AiRuntimeJob" j SET "cancelRequested" = true, "cancelRequestedAt" = COALESCE(j."cancelRequestedAt", ${at}::timestamp(3)), "updatedAt" = ${at}::timestamp(3)
      WHERE ${where} AND j.status IN (${statusList(HELD_STATUSES)})
      RETURNING ${RETURNING}
    )
    SELECT upd.id, ${notify("upd")} FROM upd`;
}
