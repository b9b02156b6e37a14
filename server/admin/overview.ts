import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { queueStats } from "../observability/queue-stats";

export const WINDOWS = {
  "1h": { ms: 3_600_000, bucketMinutes: 1 },
  "24h": { ms: 86_400_000, bucketMinutes: 30 },
  "7d": { ms: 7 * 86_400_000, bucketMinutes: 360 },
} as const;
export type OverviewWindow = keyof typeof WINDOWS;

/** Jobs waiting while no Runtime has called in for this long: nobody is working the queue. */
export const RUNTIME_SILENT_AFTER_SECONDS = 120;

type Bucket = { b: Date | null; succeeded: number; failed: number; p50: number | null; p95: number | null };
type WaitBucket = { b: Date | null; n: number; p50: number | null; p95: number | null };

/**
 * Everything the overview shows, in four index-backed queries: counts and queue from the metrics'
 * queue stats; throughput and run time from jobs finished in the window (finishedAt index); wait
 * time from first-attempt lock events in the window (JobEvent createdAt index). GROUPING SETS gives
 * each series and the window's total in one pass.
 */
export async function getOverview(window: OverviewWindow) {
  const db = getDb();
  const at = now();
  const { ms, bucketMinutes } = WINDOWS[window];
  const from = new Date(at.getTime() - ms);
  const bucket = `${bucketMinutes} minutes`;
  const [stats, finished, waits, lastSeen] = await Promise.all([
    queueStats(),
    db.$queryRaw<Bucket[]>(finishedSql(from, at, bucket)),
    db.$queryRaw<WaitBucket[]>(waitSql(from, at, bucket)),
    db.$queryRaw<{ last: Date | null }[]>`SELECT max("lastSeenAt") AS last FROM "RuntimeInstance"`,
  ]);

  const byState: Record<string, number> = {};
  const byType: Record<string, number> = {};
  for (const r of stats.byState) {
    byState[r.status] = (byState[r.status] ?? 0) + r.n;
    byType[r.jobType] = (byType[r.jobType] ?? 0) + r.n;
  }
  const total = finished.find((r) => r.b === null);
  const waitTotal = waits.find((r) => r.b === null);
  const succeeded = total?.succeeded ?? 0;
  const failed = total?.failed ?? 0;
  const last = lastSeen[0]?.last ?? null;
  const silentFor = last ? (at.getTime() - last.getTime()) / 1000 : null;
  const buckets = series(from, at, bucketMinutes, finished, waits);
  return {
    window,
    at,
    bucketMinutes,
    byState: Object.entries(byState).map(([status, n]) => ({ status, n })),
    byType: Object.entries(byType).map(([jobType, n]) => ({ jobType, n })),
    queueDepth: stats.queueDepth,
    oldestPendingAgeSeconds: stats.oldestPendingAgeSeconds,
    totals: {
      succeeded,
      failed,
      failureRate: succeeded + failed ? failed / (succeeded + failed) : 0,
      perMinute: (succeeded + failed) / (ms / 60_000),
      runP50: num(total?.p50),
      runP95: num(total?.p95),
      waitP50: num(waitTotal?.p50),
      waitP95: num(waitTotal?.p95),
    },
    buckets,
    lastRuntimeSeenAt: last,
    alert:
      stats.queueDepth > 0 && (silentFor === null || silentFor > RUNTIME_SILENT_AFTER_SECONDS)
        ? { code: "NO_RUNTIME" as const, message: `${stats.queueDepth} job(s) waiting and no Runtime seen ${last ? `for ${Math.round(silentFor!)} s` : "ever"}` }
        : null,
  };
}

function num(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** Every bucket of the window, empty ones included, so charts keep a true time axis. */
function series(from: Date, at: Date, minutes: number, finished: Bucket[], waits: WaitBucket[]) {
  const step = minutes * 60_000;
  const f = new Map(finished.filter((r) => r.b).map((r) => [r.b!.getTime(), r]));
  const w = new Map(waits.filter((r) => r.b).map((r) => [r.b!.getTime(), r]));
  const out = [];
  for (let t = from.getTime(); t <= at.getTime(); t += step) {
    const a = f.get(t);
    const b = w.get(t);
    out.push({
      start: new Date(t),
      succeeded: a?.succeeded ?? 0,
      failed: a?.failed ?? 0,
      runP50: num(a?.p50),
      runP95: num(a?.p95),
      waitP50: num(b?.p50),
      waitP95: num(b?.p95),
    });
  }
  return out;
}


/** Jobs finished in the window, per bucket and in total (finishedAt index). Exported for EXPLAIN tests. */
export function finishedSql(from: Date, at: Date, bucket: string) {
  return Prisma.sql`
      SELECT date_bin(${bucket}::interval, j."finishedAt", ${from}::timestamp(3)) AS b,
        count(*) FILTER (WHERE j.status = 'succeeded')::int AS succeeded,
        count(*) FILTER (WHERE j.status = 'failed')::int AS failed,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM j."finishedAt" - j."lockedAt")) AS p50,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM j."finishedAt" - j."lockedAt")) AS p95
      FROM "AiRuntimeJob" j
      WHERE j."finishedAt" >= ${from}::timestamp(3) AND j."finishedAt" <= ${at}::timestamp(3) AND j.status IN ('succeeded', 'failed')
      GROUP BY GROUPING SETS ((1), ())`;
}

/** First-attempt locks in the window, per bucket and in total (JobEvent createdAt index, then the job by id). */
export function waitSql(from: Date, at: Date, bucket: string) {
  return Prisma.sql`
      SELECT date_bin(${bucket}::interval, e."createdAt", ${from}::timestamp(3)) AS b, count(*)::int AS n,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM e."createdAt" - j."createdAt")) AS p50,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM e."createdAt" - j."createdAt")) AS p95
      FROM "JobEvent" e JOIN "AiRuntimeJob" j ON j.id = e."jobId"
      WHERE e."createdAt" >= ${from}::timestamp(3) AND e."createdAt" <= ${at}::timestamp(3) AND e."toStatus" = 'locked' AND e."attemptNo" = 1
      GROUP BY GROUPING SETS ((1), ())`;
}
