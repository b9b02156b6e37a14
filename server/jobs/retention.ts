import { getDb } from "../db";
import { now } from "../clock";
import { setting } from "../config";
import { TERMINAL_STATUSES } from "./constants";
import { pruneQuotaUsage } from "./quota";
import { statusList } from "./status-sql";
import { dropAgedPartitions, ensurePartitions } from "./partitions";

const DAY = 86_400_000;

export function retentionDays() {
  const days = setting("JOB_RETENTION_DAYS");
  return Number.isFinite(days) && days > 0 ? days : 90;
}

/**
 * Retention, daily. First the time partitions: made ahead, and the events and results of every
 * span whose jobs all ended before the cutoff dropped whole (server/jobs/partitions.ts). Then
 * finished jobs (succeeded, failed, cancelled) whose finishedAt is older than the retention are
 * deleted, `batchSize` rows per statement so no single transaction holds many locks; their events
 * and results go by the foreign keys' cascade (nothing left to find for a dropped span), and a job
 * some re-run points at keeps the link as NULL (ON DELETE SET NULL). Quota counters of past
 * windows go too. Returns how many jobs were deleted and the spans dropped.
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
  for (; batches < (opts.maxBatches ?? Infinity);) {
    batches++;
    const n = await getDb().$executeRaw`
      DELETE FROM "AiRuntimeJob" WHERE id IN (
        SELECT id FROM "AiRuntimeJob"
        WHERE status IN (${statusList(TERMINAL_STATUSES)}) AND "finishedAt" < ${cutoff}::timestamp(3)
        ORDER BY "finishedAt" LIMIT ${batch}
        FOR UPDATE SKIP LOCKED)`;
    deleted += n;
    if (n < batch) break;
  }
  await pruneQuotaUsage();
  return { deleted, batches, cutoff, droppedPartitions, madePartitions: made.made };
}
