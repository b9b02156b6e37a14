import { getDb } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { notify, RETURNING } from "../jobs/state-machine";
import { recordAudit } from "../audit";
import { requeueTurnSql } from "../jobs/fair-queue";

/**
 * Changes the queue position of a pending job (lower runs first: poll orders by priority ASC),
 * with its fair-queue turn recomputed for the new priority (server/jobs/fair-queue.ts).
 * Not a status change, so no JobEvent and not the state machine's business; the audit row is
 * written in the same transaction, and the push tells live viewers.
 */
export async function setJobPriority(jobId: string, priority: number, actorId: string) {
  const db = getDb();
  const at = now();
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string; priority: number; previous: number }[]>`
      WITH prev AS (SELECT id, priority FROM "AiRuntimeJob" WHERE id = ${jobId} AND status = 'pending' FOR UPDATE),
      upd AS (
        UPDATE "AiRuntimeJob" j SET priority = ${priority}, "queueTurn" = ${requeueTurnSql(priority)}, "updatedAt" = ${at}::timestamp(3) FROM prev
        WHERE j.id = prev.id RETURNING ${RETURNING}
      )
      SELECT upd.id, upd.priority, prev.priority AS previous, ${notify("upd")} FROM upd JOIN prev ON prev.id = upd.id`;
    const row = rows[0];
    if (!row) {
      const job = await tx.aiRuntimeJob.findUnique({ where: { id: jobId }, select: { status: true } });
      if (!job) throw new AppError("JOB_NOT_FOUND", `job ${jobId} not found`);
      throw new AppError("JOB_NOT_PENDING", `only pending jobs can change priority; this one is ${job.status}`, {
        status: job.status,
      });
    }
    await recordAudit(
      { actorId, action: "job.priority", scope: { jobId, from: row.previous, to: priority }, count: 1 },
      tx,
    );
    return { id: row.id, priority: row.priority, previous: row.previous };
  });
}
