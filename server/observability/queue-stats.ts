import { getDb } from "../db";
import { now } from "../clock";

/** Counts by state and type, queue depth and the oldest visible pending job: read at scrape time. */
export async function queueStats() {
  const db = getDb();
  const at = now();
  const [byState, queue] = await Promise.all([
    db.$queryRaw<{ status: string; jobType: string; n: number }[]>`
      SELECT status::text AS status, "jobType"::text AS "jobType", count(*)::int AS n FROM "AiRuntimeJob" GROUP BY 1, 2`,
    db.$queryRaw<{ depth: number; oldest: Date | null }[]>`
      SELECT count(*)::int AS depth, min("createdAt") AS oldest FROM "AiRuntimeJob"
      WHERE status = 'pending' AND "runAfter" <= ${at}::timestamp(3) AND NOT "cancelRequested"`,
  ]);
  const oldest = queue[0]?.oldest ?? null;
  return {
    byState,
    queueDepth: queue[0]?.depth ?? 0,
    oldestPendingAgeSeconds: oldest ? Math.max(0, (at.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
