import { getDb } from "../db";
import { now } from "../clock";
import { jobCounts } from "./rollups";

/**
 * Counts by state and type (the rollup counters plus the events since their watermark: a few
 * hundred rows whatever the table's size), queue depth and the oldest visible pending job (the
 * queue table's pending index): read at scrape time.
 */
export async function queueStats() {
  const db = getDb();
  const at = now();
  const [byState, queue] = await Promise.all([
    jobCounts(db),
    db.$queryRaw<{ depth: number; oldest: Date | null }[]>`
      SELECT count(*)::int AS depth, min(j."createdAt") AS oldest FROM "JobQueue" q JOIN "AiRuntimeJob" j ON j.id = q."jobId"
      WHERE q.status = 'pending' AND j.status = 'pending' AND j."runAfter" <= ${at}::timestamp(3) AND NOT j."cancelRequested"`,
  ]);
  const oldest = queue[0]?.oldest ?? null;
  return {
    byState,
    queueDepth: queue[0]?.depth ?? 0,
    oldestPendingAgeSeconds: oldest ? Math.max(0, (at.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
