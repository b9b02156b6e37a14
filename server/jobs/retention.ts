import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { setting } from "../config";
import { TERMINAL_STATUSES } from "./constants";
import { pruneQuotaUsage } from "./quota";
import { statusList } from "./status-sql";
import { dropAgedPartitions, ensurePartitions } from "./partitions";
import { forgetPartitions, JOBS } from "./job-partition";

const DAY = 86_400_000;

export function retentionDays() {
  const days = setting("JOB_RETENTION_DAYS");
  return Number.isFinite(days) && days > 0 ? days : 90;
}

/**
 * Retention, daily. Finished jobs (succeeded, failed, cancelled) older than the retention go with
 * their events and results:
 * - in time partitions (every job made since the partitions were made), by dropping each span
 *   that ended before the cutoff once every job of it has ended before the cutoff
 *   (server/jobs/partitions.ts), after making the spans ahead: no row is deleted, so a job is
 *   kept the retention and at most one span (JOB_PARTITION_DAYS) longer;
 * - in the `_before` and `_default` partitions (jobs made before the partitions, ids no span
 *   holds), by deleting rows, `batchSize` per statement so no single transaction holds many locks
 *   (their events and results by the foreign keys' cascade; a re-run's link becomes NULL).
 * Quota counters of past windows go too. Returns how many job rows were deleted and the spans dropped.
 */
export async function pruneFinishedJobs(
  opts: { olderThanDays?: number; batchSize?: number; maxBatches?: number } = {},
) {
  const cutoff = new Date(now().getTime() - (opts.olderThanDays ?? retentionDays()) * DAY);
  const made = await ensurePartitions();
  const droppedPartitions = await dropAgedPartitions(cutoff);
  forgetPartitions();
  const batch = Math.max(1, Math.floor(opts.batchSize ?? 1000));
  let deleted = 0;
  let batches = 0;
  for (const part of [`${JOBS}_before`, `${JOBS}_default`]) {
    for (; batches < (opts.maxBatches ?? Infinity);) {
      batches++;
      const table = Prisma.raw(`"${part}"`);
      const n = await getDb().$executeRaw`
        DELETE FROM ${table} WHERE id IN (
          SELECT id FROM ${table}
          WHERE "createdAt" < ${cutoff}::timestamp(3) AND status IN (${statusList(TERMINAL_STATUSES)}) AND "finishedAt" < ${cutoff}::timestamp(3)
          ORDER BY "createdAt" LIMIT ${batch}
          FOR UPDATE SKIP LOCKED)`;
      deleted += n;
      if (n < batch) break;
    }
  }
  await pruneQuotaUsage();
  return { deleted, batches, cutoff, droppedPartitions, madePartitions: made.made };
}
