import { Prisma } from "../generated/prisma/client";

/**
 * Log-scale latency histogram shared by the rollups (SQL) and the overview (JS): bucket 0 holds
 * times ≤ 10 ms, bucket k holds (10 ms · 1.25^(k-1), 10 ms · 1.25^k], the last one everything
 * above ≈ 6 days. A percentile read back from it is within one bucket, i.e. within 25 % of
 * the true value, interpolated linearly inside the bucket.
 */
export const HIST_BASE_SECONDS = 0.01;
export const HIST_FACTOR = 1.25;
export const HIST_BUCKETS = 80;

/** The bucket of `seconds` as SQL (the same rule as histBucket). */
export function histBucketSql(seconds: Prisma.Sql): Prisma.Sql {
  // Constants inlined: as parameters their type would be unknown to the planner.
  const c = (v: number) => Prisma.raw(String(v));
  return Prisma.sql`least(${c(HIST_BUCKETS - 1)}, greatest(0, ceil(ln(greatest(${seconds}, 1e-9) / ${c(HIST_BASE_SECONDS)}) / ln(${c(HIST_FACTOR)}))))::int`;
}

export function histBucket(seconds: number): number {
  if (seconds <= HIST_BASE_SECONDS) return 0;
  return Math.min(HIST_BUCKETS - 1, Math.ceil(Math.log(seconds / HIST_BASE_SECONDS) / Math.log(HIST_FACTOR)));
}

export function bucketBounds(idx: number): [number, number] {
  return [idx === 0 ? 0 : HIST_BASE_SECONDS * HIST_FACTOR ** (idx - 1), HIST_BASE_SECONDS * HIST_FACTOR ** idx];
}

export type Histogram = Map<number, number>;

export function addInto(into: Histogram, idx: number, n: number) {
  into.set(idx, (into.get(idx) ?? 0) + n);
}

/** The q-quantile (0..1) in seconds, or null for an empty histogram. */
export function quantile(h: Histogram, q: number): number | null {
  let total = 0;
  for (const n of h.values()) total += n;
  if (!total) return null;
  const rank = q * total;
  let seen = 0;
  for (const idx of [...h.keys()].sort((a, b) => a - b)) {
    const n = h.get(idx)!;
    if (seen + n >= rank) {
      const [lo, hi] = bucketBounds(idx);
      return lo + (hi - lo) * Math.min(1, Math.max(0, (rank - seen) / n));
    }
    seen += n;
  }
  return bucketBounds(HIST_BUCKETS - 1)[1];
}
