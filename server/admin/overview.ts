import { getDb } from "../db";
import { now } from "../clock";
import { queueStats } from "../observability/queue-stats";
import { timeSeries, type TimeRow } from "../observability/rollups";
import { addInto, quantile, type Histogram } from "../observability/histogram";

export const WINDOWS = {
  "1h": { ms: 3_600_000, bucketMinutes: 1, width: 1 },
  "24h": { ms: 86_400_000, bucketMinutes: 30, width: 30 },
  "7d": { ms: 7 * 86_400_000, bucketMinutes: 360, width: 360 },
} as const;
export type OverviewWindow = keyof typeof WINDOWS;

/** Jobs waiting while no Runtime has called in for this long: nobody is working the queue. */
export const RUNTIME_SILENT_AFTER_SECONDS = 120;

type Series = { succeeded: number; failed: number; run: Histogram; wait: Histogram };
const emptySeries = (): Series => ({ succeeded: 0, failed: 0, run: new Map(), wait: new Map() });

/**
 * Everything the overview shows, from rollups (server/observability/rollups.ts) instead of raw
 * rows, so its cost does not grow with the tables: counts by state and type from the counters,
 * throughput and run / wait percentiles from per-minute or per-half-hour histograms, plus the
 * queue from the pending-jobs index. Buckets are aligned to the clock (whole minutes, half
 * hours, 00/06/12/18 UTC), so the first one may start up to one bucket before `at − window`.
 */
export async function getOverview(window: OverviewWindow) {
  const db = getDb();
  const at = now();
  const { ms, bucketMinutes, width } = WINDOWS[window];
  const step = bucketMinutes * 60_000;
  const from = new Date(Math.floor((at.getTime() - ms) / step) * step);
  const [stats, rows, lastSeen] = await Promise.all([
    queueStats(),
    timeSeries(width, bucketMinutes, from, at),
    db.$queryRaw<{ last: Date | null }[]>`SELECT max("lastSeenAt") AS last FROM "RuntimeInstance"`,
  ]);

  const byState: Record<string, number> = {};
  const byType: Record<string, number> = {};
  for (const r of stats.byState) {
    byState[r.status] = (byState[r.status] ?? 0) + r.n;
    byType[r.jobType] = (byType[r.jobType] ?? 0) + r.n;
  }
  const { buckets, total } = series(from, at, bucketMinutes, rows);
  const { succeeded, failed } = total;
  const last = lastSeen[0]?.last ?? null;
  const silentFor = last ? (at.getTime() - last.getTime()) / 1000 : null;
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
      runP50: quantile(total.run, 0.5),
      runP95: quantile(total.run, 0.95),
      waitP50: quantile(total.wait, 0.5),
      waitP95: quantile(total.wait, 0.95),
    },
    buckets,
    lastRuntimeSeenAt: last,
    alert:
      stats.queueDepth > 0 && (silentFor === null || silentFor > RUNTIME_SILENT_AFTER_SECONDS)
        ? {
            code: "NO_RUNTIME" as const,
            message: `${stats.queueDepth} job(s) waiting and no Runtime seen ${last ? `for ${Math.round(silentFor!)} s` : "ever"}`,
          }
        : null,
  };
}

/** Every bucket of the window, empty ones included, so charts keep a true time axis; and the window's total. */
function series(from: Date, at: Date, minutes: number, rows: TimeRow[]) {
  const byStart = new Map<number, Series>();
  const total = emptySeries();
  for (const r of rows) {
    const t = r.b.getTime();
    const s = byStart.get(t) ?? byStart.set(t, emptySeries()).get(t)!;
    for (const into of [s, total]) {
      if (r.kind === "succeeded") into.succeeded += r.n;
      else if (r.kind === "failed") into.failed += r.n;
      else if (r.kind === "run") addInto(into.run, r.idx, r.n);
      else if (r.kind === "wait") addInto(into.wait, r.idx, r.n);
    }
  }
  const buckets = [];
  for (let t = from.getTime(); t <= at.getTime(); t += minutes * 60_000) {
    const s = byStart.get(t) ?? emptySeries();
    buckets.push({
      start: new Date(t),
      succeeded: s.succeeded,
      failed: s.failed,
      runP50: quantile(s.run, 0.5),
      runP95: quantile(s.run, 0.95),
      waitP50: quantile(s.wait, 0.5),
      waitP95: quantile(s.wait, 0.95),
    });
  }
  return { buckets, total };
}
