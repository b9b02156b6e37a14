import { getDb } from "../db";
import { now } from "../clock";
import { setting } from "../config";
import { TERMINAL_STATUSES } from "./constants";
import { pruneQuotaUsage } from "./quota";
import { dropAgedPartitions, ensurePartitions } from "./partitions";

const DAY = 86_400_000;

export function retentionDays() {
  const days = setting("JOB_RETENTION_DAYS");
  return Number.isFinite(days) && days > 0 ? days : 90;
}

/**
 * Retention, daily. Finished jobs (succeeded, failed, cancelled) whose finishedAt is older than
 * the retention go with their events and results:
 * - in time partitions (every job made since the time_partitions migration), by dropping each
 *   partition whose jobs have all ended before the cutoff (server/jobs/partitions.ts), after making
 *   the partitions ahead;
 * - in the `_before` and `_default` partitions (jobs made before that migration, ids no partition
 *   holds), by deleting rows, `batchSize` per statement so no single transaction holds many locks
 *   (foreign keys cascade; a re-run's link to a deleted job becomes NULL).
 * Quota counters of past windows go too.
 */
export async function pruneFinishedJobs(
  opts: { olderThanDays?: number; batchSize?: number; maxBatches?: number } = {},
) {
  const cutoff = new Date(now().getTime() - (opts.olderThanDays ?? retentionDays()) * DAY);
  const made = await ensurePartitions();
  const droppedPartitions = await dropAgedPartitions(cutoff);
  const batch = Math.max(1, Math.floor(opts.batchSize ?? 1000));
  let deleted = 0;
  let batches = 0;
  for (const part of ["AiRuntimeJob_before", "AiRuntimeJob_default"]) {
    for (; batches < (opts.maxBatches ?? Infinity);) {
      batches++;
      const n = await getDb().$executeRawUnsafe(
        `DELETE FROM "${part}" WHERE id IN (
          SELECT id FROM "${part}"
          WHERE status IN (${TERMINAL_STATUSES.map((s) => `'${s}'`).join(", ")}) AND "finishedAt" < $1::timestamp(3)
          ORDER BY "finishedAt" LIMIT ${batch}
          FOR UPDATE SKIP LOCKED)`,
        cutoff,
      );
      deleted += n;
      if (n < batch) break;
    }
  }
  await pruneQuotaUsage();
  return { deleted, batches, cutoff, droppedPartitions, madePartitions: made.made };
}
