import { Prisma } from "../generated/prisma/client";
import type { DbOrTx } from "../db";

/**
 * Fair order across learners (docs/contract.md#the-runtime-protocol: "by priority, then fairly across learners, then age"),
 * as start-time fair queueing. Each job gets a virtual start, `queueTurn`, when it is created:
 * one past its learner's last waiting job, but never behind the head of the queue (the lowest
 * turn still waiting at that priority). Poll and claim then read the queue in
 * (priority, queueTurn, createdAt) order straight from the queue table's pending index, with no sort.
 *
 * So a learner who queues 1,000 jobs gets turns head..head+999, and another learner's new job
 * starts at the head: it is claimed within one job per learner ahead of it, not after the 1,000.
 * A learner who keeps submitting is served once per turn, like everyone else. A retried job keeps
 * its turn (it goes back near the front). Concurrent creations of one learner may share a turn;
 * age breaks the tie.
 */
export async function nextQueueTurn(db: DbOrTx, userId: string, priority: number): Promise<number> {
  const rows = await db.$queryRaw<{ turn: number }[]>`
    SELECT GREATEST(
      (SELECT q."queueTurn" FROM "JobQueue" q WHERE q.status = 'pending' AND q.priority = ${priority}
        ORDER BY q."queueTurn" LIMIT 1),
      (SELECT q."queueTurn" + 1 FROM "JobQueue" q WHERE q.status = 'pending' AND q."userId" = ${userId} AND q.priority = ${priority}
        ORDER BY q."queueTurn" DESC LIMIT 1),
      0)::int AS turn`;
  return rows[0]?.turn ?? 0;
}

/**
 * The turn a pending job j takes when an admin moves it to `priority` (server/admin/priority.ts):
 * computed as for a job created there now (nextQueueTurn, leaving j itself out), so a raised job
 * is served at the head of its new priority, not at the turn it had in the old one. Unchanged
 * priority keeps the turn.
 */
export function requeueTurnSql(priority: number) {
  return Prisma.sql`CASE WHEN j.priority = ${priority}::int THEN j."queueTurn" ELSE GREATEST(
      (SELECT q."queueTurn" FROM "JobQueue" q WHERE q.status = 'pending' AND q.priority = ${priority}::int AND q."jobId" <> j.id
        ORDER BY q."queueTurn" LIMIT 1),
      (SELECT q."queueTurn" + 1 FROM "JobQueue" q WHERE q.status = 'pending' AND q."userId" = j."userId" AND q.priority = ${priority}::int AND q."jobId" <> j.id
        ORDER BY q."queueTurn" DESC LIMIT 1),
      0) END`;
}

/** Queue order for poll and claim, on the queue row q; matches JobQueue_pending_idx column for column. */
export const QUEUE_ORDER = Prisma.sql`q.priority, q."queueTurn", q."createdAt"`;
