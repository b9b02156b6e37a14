import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { jobConfig } from "../config";
import { now } from "../clock";
import { attemptEnd, attemptEndSet, transition, type JobRow, type TransitionSpec } from "./state-machine";
import { backoffSql, retriesWhen } from "./retry-policy";
import { statusList } from "./status-sql";
import { HELD_STATUSES } from "./constants";

/**
 * Ends attempts whose lease has passed (no heartbeat for JOB_LEASE_SECONDS, or the execution
 * timeout, which caps every lease). Each row goes expired → pending (retryCount + 1) while
 * retries remain, else → failed with JOB_TIMEOUT; a job asked to cancel ends cancelled. Both
 * events are written; the row moves in one statement, so `expired` is never left behind.
 */
function expire(which: Leases, at: Date, batch?: number, backoff = true) {
  return transition(getDb(), expireSpec(which, at, batch, backoff));
}

/** Which leases an expiry looks at: through the queue's lease index (a condition on q), or by the job row. */
export type Leases = { queue: Prisma.Sql } | { where: Prisma.Sql };

/**
 * The expiry as a transition spec: the sweep runs it, and claim and poll run it in the statement
 * that takes jobs (server/jobs/lease.ts), so a passed lease ends the same way whoever sees it first.
 */
export function expireSpec(which: Leases, at: Date, batch?: number, backoff = true): TransitionSpec {
  const where = "where" in which ? Prisma.sql`${which.where} AND ` : Prisma.empty;
  return {
    action: "expire",
    where: Prisma.sql`${where}(j."lockUntil" < ${at}::timestamp(3) OR j.status = 'expired')`,
    queue: "queue" in which ? which.queue : undefined,
    // Batches read the queue's lease index in its order; a job named by id takes no batch.
    batch: batch && "queue" in which ? { orderBy: Prisma.sql`q."leaseCheckAt"`, limit: batch } : undefined,
    to: attemptEnd(retriesWhen()),
    set: Prisma.sql`${attemptEndSet(at, backoff ? Prisma.sql`${at}::timestamp(3) + ${backoffSql()}` : Prisma.sql`${at}::timestamp(3)`, Prisma.sql`${at}::timestamp(3)`)},
      "errorCode" = CASE WHEN t."toStatus" = 'cancelled' THEN 'CANCELLED' ELSE 'JOB_TIMEOUT' END,
      "errorMessage" = CASE WHEN t."toStatus" = 'cancelled' THEN 'cancelled: the lease ended while cancel was requested'
        WHEN j."lockUntil" >= j."lockedAt" + make_interval(secs => j."timeoutSeconds") THEN 'execution timeout: running longer than timeoutSeconds'
        ELSE 'lease expired: no heartbeat before lockUntil' END`,
    eventErrorCode: Prisma.sql`u."errorCode"`,
    eventErrorMessage: Prisma.sql`u."errorMessage"`,
    viaExpired: true,
    actor: { type: "system", id: "sweep" },
    now: at,
  };
}

/** The statuses of the queue's lease index (JobQueue_lease_idx): held, or expired mid-sweep. */
const LEASED = statusList([...HELD_STATUSES, "expired"]);

/**
 * The leases due for a look (leaseCheckAt never passes lockUntil, server/jobs/lease.ts): the queue's
 * lease index is read up to now only. The sweep and the claim/poll prelude select by it.
 */
export const dueLeases = (at: Date): Leases => ({
  queue: Prisma.sql`q.status IN (${LEASED}) AND q."leaseCheckAt" < ${at}::timestamp(3)`,
});

/**
 * Held leases without a check time: taken by an app instance that ran before the column existed
 * (a rolling upgrade). The sweep ends them by lockUntil, so none is left held forever; their next
 * heartbeat gives them a check time.
 */
const uncheckedLeases: Leases = { queue: Prisma.sql`q.status IN (${LEASED}) AND q."leaseCheckAt" IS NULL` };

export type SweepResult = { expired: number; requeued: number; failed: number; cancelled: number; batches: number };

/**
 * Sweepers running at once. A sweep's cost is PostgreSQL's per-row work (the row rewrite with its
 * index entries, two events); a second backend spreads it over a second core. SKIP LOCKED keeps
 * their batches disjoint.
 */
const SWEEPERS = 2;

/** Sweeps every passed lease, in batches of JOB_SWEEP_BATCH rows (SKIP LOCKED: sweepers may overlap). */
export async function sweepExpiredLeases(
  opts: { batchSize?: number; maxBatches?: number; sweepers?: number } = {},
): Promise<SweepResult> {
  const batchSize = opts.batchSize ?? jobConfig.sweepBatchSize;
  const maxBatches = opts.maxBatches ?? Infinity;
  const result: SweepResult = { expired: 0, requeued: 0, failed: 0, cancelled: 0, batches: 0 };
  const sweeper = async (which: (at: Date) => Leases) => {
    while (result.batches < maxBatches) {
      result.batches++;
      const at = now();
      const rows = await expire(which(at), at, batchSize);
      tally(result, rows);
      if (rows.length < batchSize) return;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.sweepers ?? SWEEPERS) }, () => sweeper(dueLeases)));
  await sweeper(() => uncheckedLeases);
  return result;
}

/** Ends one job's passed lease now (used by lock, so correctness never waits for the cron). */
export async function sweepJob(jobId: string) {
  // No backoff here: a Runtime asking for this very job takes it over at once.
  return expire({ where: Prisma.sql`j.id = ${jobId}` }, now(), undefined, false);
}

function tally(result: SweepResult, rows: JobRow[]) {
  result.expired += rows.length;
  for (const r of rows) {
    if (r.status === "pending") result.requeued++;
    else if (r.status === "failed") result.failed++;
    else if (r.status === "cancelled") result.cancelled++;
  }
}
