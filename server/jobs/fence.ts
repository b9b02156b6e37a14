import { Prisma } from "../generated/prisma/client";
import type { JobStatus } from "../generated/prisma/enums";
import { getDb } from "../db";
import { AppError } from "../errors";
import { HELD_STATUSES } from "./constants";

/**
 * The lease fence: who holds a job, and the test every Runtime write passes (heartbeat, result,
 * failure): the current holder (instance and key), the current attempt, the lease not passed.
 * server/jobs/lease.ts takes and renews leases; server/jobs/results.ts ends them.
 */

/**
 * Who holds a lease: the Runtime process (runtimeInstanceId, which becomes lockedBy) and the key it
 * authenticated with. Requests over the protocol always carry keyId, so another key sending the same
 * instance id and attempt number is LOCK_LOST (docs/contract.md#the-runtime-protocol); in-process callers without a key (tests,
 * scripts) are fenced on the instance id alone.
 */
export type Holder = { runtimeInstanceId: string; keyId?: string | null };

/** The fence every Runtime write passes: current holder (instance and key), current attempt, lease not passed. */
export function holds(jobId: string, holder: Holder, attemptNo: number, at: Date) {
  const key = holder.keyId == null ? Prisma.empty : Prisma.sql` AND j."lockedByKeyId" = ${holder.keyId}`;
  return Prisma.sql`j.id = ${jobId} AND j."lockedBy" = ${holder.runtimeInstanceId}${key} AND j."attemptNo" = ${attemptNo}
    AND j."lockUntil" > ${at}::timestamp(3)`;
}

/** The columns holdsRow() reads: select them to check a lease from a row read back. */
export const HOLDER_COLUMNS = {
  status: true,
  lockedBy: true,
  lockedByKeyId: true,
  attemptNo: true,
  lockUntil: true,
} as const;

/** The same fence as holds(), on a row already read: for diagnosing a refused write. */
export function holdsRow(
  job: {
    status: JobStatus;
    lockedBy: string | null;
    lockedByKeyId: string | null;
    attemptNo: number;
    lockUntil: Date | null;
  },
  holder: Holder,
  attemptNo: number,
  at: Date,
) {
  return (
    HELD_STATUSES.includes(job.status) &&
    job.lockedBy === holder.runtimeInstanceId &&
    (holder.keyId == null || job.lockedByKeyId === holder.keyId) &&
    job.attemptNo === attemptNo &&
    !!job.lockUntil &&
    job.lockUntil > at
  );
}

/**
 * The answer for a job that does not exist, and the same one for a job this key never held (or no
 * longer last held): a key learns nothing of other keys' jobs (docs/contract.md#the-runtime-protocol).
 */
export const notFound = (jobId: string) => new AppError("JOB_NOT_FOUND", `job ${jobId} not found`);

export async function lockLost(jobId: string, holder: Holder) {
  const job = await getDb().aiRuntimeJob.findUnique({
    where: { id: jobId },
    select: { status: true, attemptNo: true, lockedBy: true, lockedByKeyId: true },
  });
  if (!job || (holder.keyId != null && job.lockedByKeyId !== holder.keyId)) return notFound(jobId);
  const reason =
    job.lockedBy && job.lockedBy !== holder.runtimeInstanceId
      ? "another Runtime holds the lease"
      : HELD_STATUSES.includes(job.status)
        ? "the lease has passed or the attempt is not current"
        : `the job is ${job.status}`;
  return new AppError("LOCK_LOST", `lease lost: ${reason}`, { status: job.status, attemptNo: job.attemptNo });
}
