import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { costConfig } from "../config";
import { windowOf } from "../jobs/quota";
import { cacheSavings, estimateCost } from "../jobs/prices";

export { estimateCost };

/** The cost panel covers the last 14 UTC days (today included); top learners the last 7 days. */
export const COST_DAYS = 14;
export const TOP_LEARNERS = 10;
const DAY_MS = 86_400_000;

type Sums = { promptTokens: number; completionTokens: number; cacheHitTokens: number; attempts: number };
type GroupRow = Sums & { day: Date | null; jobType: string | null; apiKeyMode: string | null; g: number };
type LearnerRow = Sums & { userId: string; email: string | null; name: string | null };

const withCost = <T extends Sums>(r: T) => ({
  ...r,
  tokens: r.promptTokens + r.completionTokens,
  cost: estimateCost(r.promptTokens, r.completionTokens, r.cacheHitTokens),
  /** The share of prompt tokens the provider's prompt cache served, and what that saved. */
  cacheHitShare: r.promptTokens > 0 ? r.cacheHitTokens / r.promptTokens : 0,
  cacheSaved: cacheSavings(r.cacheHitTokens),
});
const NONE: Sums = { promptTokens: 0, completionTokens: 0, cacheHitTokens: 0, attempts: 0 };

/**
 * A UTC day's usage is folded into UsageDayRollup / UsageDayLearner once the day has been over for
 * this long by the database's clock: usage rows are written with the time of their own short
 * transaction, so none for that day can still commit.
 */
export const CLOSE_MARGIN_MINUTES = 10;

type Range = { from: Date; to: Date };
const floorDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);

/**
 * Folds every day in [from, to) that is over and not folded yet, in one statement: the marker
 * insert decides which caller folds a day (a racing caller's conflicting insert waits, then skips),
 * and the two rollup inserts read only the markers this statement wrote. Returns the end of the
 * folded prefix: every day from `from` up to it is in the rollups.
 */
export async function closeDays(from: Date, to: Date): Promise<Date> {
  const [row] = await getDb().$queryRaw<{ folded: Date }[]>`
    WITH days AS (
      SELECT d::date AS day FROM generate_series(${floorDay(from)}::timestamp(3), ${to}::timestamp(3) - interval '1 day', interval '1 day') d
      WHERE d + interval '1 day' + make_interval(mins => ${CLOSE_MARGIN_MINUTES}) <= now() AT TIME ZONE 'UTC'
    ), closed AS (
      INSERT INTO "UsageDayClosed" (day) SELECT day FROM days ON CONFLICT DO NOTHING RETURNING day
    ), u AS (
      SELECT c.day, x."jobType", x."apiKeyMode", x."userId", x."promptTokens", x."completionTokens", x."cacheHitTokens"
      FROM closed c JOIN "JobUsage" x ON x."createdAt" >= c.day AND x."createdAt" < c.day + 1
    ), a AS (
      INSERT INTO "UsageDayRollup" (day, "jobType", "apiKeyMode", "promptTokens", "completionTokens", "cacheHitTokens", attempts)
      SELECT day, "jobType", "apiKeyMode", sum("promptTokens"), sum("completionTokens"), sum("cacheHitTokens"), count(*) FROM u GROUP BY 1, 2, 3
      RETURNING 1
    ), b AS (
      INSERT INTO "UsageDayLearner" (day, "userId", "promptTokens", "completionTokens", "cacheHitTokens", attempts)
      SELECT day, "userId", sum("promptTokens"), sum("completionTokens"), sum("cacheHitTokens"), count(*) FROM u GROUP BY 1, 2
      RETURNING 1
    )
    SELECT least(${floorDay(to)}::timestamp(3),
      date_trunc('day', now() AT TIME ZONE 'UTC' - make_interval(mins => ${CLOSE_MARGIN_MINUTES}))) AS folded,
      (SELECT count(*) FROM a) + (SELECT count(*) FROM b) AS written`;
  return row!.folded;
}

/**
 * The UTC hours of `ranges` that are over (by CLOSE_MARGIN_MINUTES) and not folded yet are folded
 * into UsageHourRollup / UsageHourLearner, in one statement, as closeDays does for days (the
 * marker insert decides which racing caller folds an hour). Hour rows older than the panel's
 * reach are pruned when something new is folded. Returns the end of the folded hours: every hour
 * of `ranges` before it is in the hour rollups.
 */
export async function closeHours(ranges: Range[], to: Date): Promise<Date> {
  const r = ranges.length ? ranges : [{ from: to, to }];
  const [row] = await getDb().$queryRaw<{ folded: Date }[]>`
    WITH r(lo, hi) AS (VALUES ${Prisma.join(r.map((x) => Prisma.sql`(${x.from}::timestamp(3), ${x.to}::timestamp(3))`))}),
    hours AS (
      SELECT DISTINCT h AS hour FROM r, generate_series(date_trunc('hour', r.lo - interval '1 millisecond') + interval '1 hour', r.hi - interval '1 hour', interval '1 hour') h
      WHERE h + interval '1 hour' + make_interval(mins => ${CLOSE_MARGIN_MINUTES}) <= now() AT TIME ZONE 'UTC'
    ), closed AS (
      INSERT INTO "UsageHourClosed" (hour) SELECT hour FROM hours ON CONFLICT DO NOTHING RETURNING hour
    ), u AS (
      SELECT c.hour, x."jobType", x."apiKeyMode", x."userId", x."promptTokens", x."completionTokens", x."cacheHitTokens"
      FROM closed c JOIN "JobUsage" x ON x."createdAt" >= c.hour AND x."createdAt" < c.hour + interval '1 hour'
    ), a AS (
      INSERT INTO "UsageHourRollup" (hour, "jobType", "apiKeyMode", "promptTokens", "completionTokens", "cacheHitTokens", attempts)
      SELECT hour, "jobType", "apiKeyMode", sum("promptTokens"), sum("completionTokens"), sum("cacheHitTokens"), count(*) FROM u GROUP BY 1, 2, 3
      RETURNING 1
    ), b AS (
      INSERT INTO "UsageHourLearner" (hour, "userId", "promptTokens", "completionTokens", "cacheHitTokens", attempts)
      SELECT hour, "userId", sum("promptTokens"), sum("completionTokens"), sum("cacheHitTokens"), count(*) FROM u GROUP BY 1, 2
      RETURNING 1
    ), p1 AS (
      DELETE FROM "UsageHourRollup" WHERE hour < now() AT TIME ZONE 'UTC' - make_interval(days => ${HOUR_ROWS_KEPT_DAYS})
        AND EXISTS (SELECT 1 FROM closed) RETURNING 1
    ), p2 AS (
      DELETE FROM "UsageHourLearner" WHERE hour < now() AT TIME ZONE 'UTC' - make_interval(days => ${HOUR_ROWS_KEPT_DAYS})
        AND EXISTS (SELECT 1 FROM closed) RETURNING 1
    ), p3 AS (
      DELETE FROM "UsageHourClosed" WHERE hour < now() AT TIME ZONE 'UTC' - make_interval(days => ${HOUR_ROWS_KEPT_DAYS})
        AND EXISTS (SELECT 1 FROM closed) RETURNING 1
    )
    SELECT least(date_trunc('hour', ${to}::timestamp(3)),
      date_trunc('hour', now() AT TIME ZONE 'UTC' - make_interval(mins => ${CLOSE_MARGIN_MINUTES}))) AS folded,
      (SELECT count(*) FROM a) + (SELECT count(*) FROM b) + (SELECT count(*) FROM p1) + (SELECT count(*) FROM p2) + (SELECT count(*) FROM p3) AS written`;
  return row!.folded;
}

/** Hour rollups are kept this long (the panel reads at most 14 days back). */
export const HOUR_ROWS_KEPT_DAYS = 16;
const HOUR_MS = 3_600_000;

export type Cover = { days: Range | null; hours: Range[]; raw: Range[] };

/** The whole `unit`s of `r` before `folded`, and what is left of `r` around them. */
function whole(r: Range, unit: number, folded: Date): { part: Range | null; rest: Range[] } {
  const lo = Math.ceil(r.from.getTime() / unit) * unit;
  const hi = Math.floor(Math.min(r.to.getTime(), folded.getTime()) / unit) * unit;
  if (lo >= hi) return { part: null, rest: [r] };
  const rest = [
    { from: r.from, to: new Date(lo) },
    { from: new Date(hi), to: r.to },
  ].filter((x) => x.from.getTime() < x.to.getTime());
  return { part: { from: new Date(lo), to: new Date(hi) }, rest };
}

/**
 * [from, to) as whole folded days (read from the day rollups), whole folded hours of what is left
 * (the hour rollups), and the raw edges (JobUsage rows: at most the last hour or so, and the
 * minutes before the first whole hour).
 */
export function split(from: Date, to: Date, foldedDays: Date, foldedHours: Date = from): Cover {
  const d = whole({ from, to }, DAY_MS, foldedDays);
  const out: Cover = { days: d.part, hours: [], raw: [] };
  for (const piece of d.rest) {
    const h = whole(piece, HOUR_MS, foldedHours);
    if (h.part) out.hours.push(h.part);
    out.raw.push(...h.rest);
  }
  return out;
}

const inRanges = (column: string, ranges: Range[]) =>
  ranges.length
    ? Prisma.join(
        ranges.map(
          (r) =>
            Prisma.sql`(${Prisma.raw(`"${column}"`)} >= ${r.from}::timestamp(3) AND ${Prisma.raw(`"${column}"`)} < ${r.to}::timestamp(3))`,
        ),
        " OR ",
      )
    : Prisma.sql`false`;
const rawWhere = (raw: Range[]) => inRanges("createdAt", raw);

/**
 * Per day, per job type and per key mode in one pass (GROUPING SETS): folded days from
 * UsageDayRollup, the rest (today, or days not over yet) from the usage rows through
 * JobUsage_createdAt_idx (tests/admin/costs.test.ts checks the plan at 200k rows).
 */
export function groupsSql(from: Date, to: Date, folded: Date = from, foldedHours: Date = from) {
  const { days, hours, raw } = split(from, to, folded, foldedHours);
  return Prisma.sql`
    WITH x AS (
      SELECT day::timestamp AS day, "jobType", "apiKeyMode", "promptTokens"::float8 AS p, "completionTokens"::float8 AS c,
        "cacheHitTokens"::float8 AS h, attempts::bigint AS n
      FROM "UsageDayRollup" WHERE ${days ? Prisma.sql`day >= ${days.from}::date AND day < ${days.to}::date` : Prisma.sql`false`}
      UNION ALL
      SELECT date_trunc('day', hour), "jobType", "apiKeyMode", "promptTokens"::float8, "completionTokens"::float8,
        "cacheHitTokens"::float8, attempts::bigint
      FROM "UsageHourRollup" WHERE ${inRanges("hour", hours)}
      UNION ALL
      SELECT date_trunc('day', "createdAt"), "jobType", "apiKeyMode", "promptTokens", "completionTokens", "cacheHitTokens", 1
      FROM "JobUsage" WHERE ${rawWhere(raw)}
    )
    SELECT day, "jobType"::text AS "jobType", "apiKeyMode"::text AS "apiKeyMode",
      GROUPING(day, "jobType", "apiKeyMode")::int AS g,
      COALESCE(sum(p), 0)::float8 AS "promptTokens", COALESCE(sum(c), 0)::float8 AS "completionTokens",
      COALESCE(sum(h), 0)::float8 AS "cacheHitTokens", COALESCE(sum(n), 0)::int AS attempts
    FROM x
    GROUP BY GROUPING SETS ((day), ("jobType"), ("apiKeyMode"), ())`;
}

export function topLearnersSql(from: Date, to: Date, folded: Date = from, foldedHours: Date = from) {
  const { days, hours, raw } = split(from, to, folded, foldedHours);
  return Prisma.sql`
    SELECT t."userId", u.email, u.name, t."promptTokens", t."completionTokens", t."cacheHitTokens", t.attempts
    FROM (
      SELECT "userId", sum(p)::float8 AS "promptTokens", sum(c)::float8 AS "completionTokens",
        sum(h)::float8 AS "cacheHitTokens", sum(n)::int AS attempts
      FROM (
        SELECT "userId", "promptTokens" AS p, "completionTokens" AS c, "cacheHitTokens" AS h, attempts::bigint AS n
        FROM "UsageDayLearner" WHERE ${days ? Prisma.sql`day >= ${days.from}::date AND day < ${days.to}::date` : Prisma.sql`false`}
        UNION ALL
        SELECT "userId", "promptTokens", "completionTokens", "cacheHitTokens", attempts::bigint FROM "UsageHourLearner" WHERE ${inRanges("hour", hours)}
        UNION ALL
        SELECT "userId", "promptTokens", "completionTokens", "cacheHitTokens", 1 FROM "JobUsage" WHERE ${rawWhere(raw)}
      ) x
      GROUP BY "userId"
      ORDER BY sum(p + c) DESC, "userId"
      LIMIT ${TOP_LEARNERS}
    ) t LEFT JOIN "User" u ON u.id = t."userId"
    ORDER BY t."promptTokens" + t."completionTokens" DESC, t."userId"`;
}

/** What the overview's cost panel shows: tokens and estimated cost per day, type and key mode. */
export async function getCosts(at: Date = now()) {
  const db = getDb();
  const from = new Date(windowOf("day", at).start.getTime() - (COST_DAYS - 1) * DAY_MS);
  const weekFrom = new Date(at.getTime() - 7 * DAY_MS);
  const folded = await closeDays(from, at);
  // What whole days do not cover (today, the week's first part-day) is read by whole hours.
  const byHours = [...split(from, at, folded).raw, ...split(weekFrom, at, folded).raw];
  const foldedHours = await closeHours(byHours, at);
  const [groups, learners] = await Promise.all([
    db.$queryRaw<GroupRow[]>(groupsSql(from, at, folded, foldedHours)),
    db.$queryRaw<LearnerRow[]>(topLearnersSql(weekFrom, at, folded, foldedHours)),
  ]);
  // GROUPING bits: day 4, jobType 2, apiKeyMode 1; a set's row has its own bit clear.
  const sums = (r: Sums): Sums => ({
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    cacheHitTokens: r.cacheHitTokens,
    attempts: r.attempts,
  });
  const byDayFound = new Map(groups.filter((r) => r.g === 3).map((r) => [r.day!.getTime(), sums(r)]));
  const byDay = Array.from({ length: COST_DAYS }, (_, i) => {
    const day = new Date(from.getTime() + i * DAY_MS);
    return { day, ...withCost(byDayFound.get(day.getTime()) ?? NONE) };
  });
  const total = groups.find((r) => r.g === 7);
  return {
    at,
    from,
    currency: costConfig.currency,
    prices: {
      promptPerMTok: costConfig.pricePromptPerMTok,
      promptCacheHitPerMTok: costConfig.pricePromptCacheHitPerMTok,
      completionPerMTok: costConfig.priceCompletionPerMTok,
    },
    total: withCost(total ? sums(total) : NONE),
    byDay,
    byType: groups
      .filter((r) => r.g === 5)
      .map((r) => ({ jobType: r.jobType!, ...withCost(sums(r)) }))
      .sort((a, b) => b.tokens - a.tokens),
    byKeyMode: groups
      .filter((r) => r.g === 6)
      .map((r) => ({ apiKeyMode: r.apiKeyMode!, ...withCost(sums(r)) }))
      .sort((a, b) => b.tokens - a.tokens),
    topLearners: learners.map((r) => ({ userId: r.userId, email: r.email, name: r.name, ...withCost(sums(r)) })),
  };
}
