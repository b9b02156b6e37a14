import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { costConfig } from "../config";
import { windowOf } from "../jobs/quota";
import { estimateCost } from "../jobs/prices";

export { estimateCost };

/** The cost panel covers the last 14 UTC days (today included); top learners the last 7 days. */
export const COST_DAYS = 14;
export const TOP_LEARNERS = 10;
const DAY_MS = 86_400_000;

type Sums = { promptTokens: number; completionTokens: number; attempts: number };
type GroupRow = Sums & { day: Date | null; jobType: string | null; apiKeyMode: string | null; g: number };
type LearnerRow = Sums & { userId: string; email: string | null; name: string | null };

const withCost = <T extends Sums>(r: T) => ({
  ...r,
  tokens: r.promptTokens + r.completionTokens,
  cost: estimateCost(r.promptTokens, r.completionTokens),
});

/**
 * Per day, per job type and per key mode in one pass (GROUPING SETS) over the usage rows of the
 * window; both queries filter on a "createdAt" range, so they read JobUsage_createdAt_idx rather
 * than the whole table (tests/admin/costs.test.ts checks the plan at 200k rows).
 */
export function groupsSql(from: Date, to: Date) {
  return Prisma.sql`
    SELECT date_trunc('day', "createdAt") AS day, "jobType"::text AS "jobType", "apiKeyMode"::text AS "apiKeyMode",
      GROUPING(date_trunc('day', "createdAt"), "jobType", "apiKeyMode")::int AS g,
      COALESCE(sum("promptTokens"), 0)::float8 AS "promptTokens", COALESCE(sum("completionTokens"), 0)::float8 AS "completionTokens",
      count(*)::int AS attempts
    FROM "JobUsage"
    WHERE "createdAt" >= ${from}::timestamp(3) AND "createdAt" < ${to}::timestamp(3)
    GROUP BY GROUPING SETS ((date_trunc('day', "createdAt")), ("jobType"), ("apiKeyMode"), ())`;
}

export function topLearnersSql(from: Date, to: Date) {
  return Prisma.sql`
    SELECT t."userId", u.email, u.name, t."promptTokens", t."completionTokens", t.attempts
    FROM (
      SELECT "userId", sum("promptTokens")::float8 AS "promptTokens", sum("completionTokens")::float8 AS "completionTokens", count(*)::int AS attempts
      FROM "JobUsage"
      WHERE "createdAt" >= ${from}::timestamp(3) AND "createdAt" < ${to}::timestamp(3)
      GROUP BY "userId"
      ORDER BY sum("promptTokens"::bigint + "completionTokens") DESC, "userId"
      LIMIT ${TOP_LEARNERS}
    ) t LEFT JOIN "User" u ON u.id = t."userId"
    ORDER BY t."promptTokens" + t."completionTokens" DESC, t."userId"`;
}

/** What the overview's cost panel shows: tokens and estimated cost per day, type and key mode. */
export async function getCosts(at: Date = now()) {
  const db = getDb();
  const from = new Date(windowOf("day", at).start.getTime() - (COST_DAYS - 1) * DAY_MS);
  const weekFrom = new Date(at.getTime() - 7 * DAY_MS);
  const [groups, learners] = await Promise.all([
    db.$queryRaw<GroupRow[]>(groupsSql(from, at)),
    db.$queryRaw<LearnerRow[]>(topLearnersSql(weekFrom, at)),
  ]);
  // GROUPING bits: day 4, jobType 2, apiKeyMode 1; a set's row has its own bit clear.
  const sums = (r: Sums): Sums => ({
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    attempts: r.attempts,
  });
  const byDayFound = new Map(groups.filter((r) => r.g === 3).map((r) => [r.day!.getTime(), sums(r)]));
  const byDay = Array.from({ length: COST_DAYS }, (_, i) => {
    const day = new Date(from.getTime() + i * DAY_MS);
    return { day, ...withCost(byDayFound.get(day.getTime()) ?? { promptTokens: 0, completionTokens: 0, attempts: 0 }) };
  });
  const total = groups.find((r) => r.g === 7);
  return {
    at,
    from,
    currency: costConfig.currency,
    prices: { promptPerMTok: costConfig.pricePromptPerMTok, completionPerMTok: costConfig.priceCompletionPerMTok },
    total: withCost(total ? sums(total) : { promptTokens: 0, completionTokens: 0, attempts: 0 }),
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
