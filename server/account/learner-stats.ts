import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { estimateCost } from "../jobs/prices";
import { costConfig } from "../config";
import type { LearnerSort } from "./learner-sorts";

export type LearnerStats = {
  locale: string | null;
  lastActiveAt: Date | null;
  dueCards: number;
  overdueCards: number;
  forgottenPoints: number;
  jobsThisMonth: number;
  costThisMonth: number;
};

const DAY_MS = 86_400_000;

/** The moments the figures are counted at: now, a day ago (overdue), the start of this UTC month. */
function moments() {
  const at = now();
  return {
    at,
    overdue: new Date(at.getTime() - DAY_MS),
    month: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
  };
}

const scheduled = (at: Date) =>
  Prisma.sql`NOT c.suspended AND (c."buriedUntil" IS NULL OR c."buriedUntil" <= ${at}::timestamp(3))`;

/** Cards of learner `u` due before `by` (not suspended or buried at `at`). */
const dueSql = (at: Date, by: Date, strict: boolean) =>
  Prisma.sql`(SELECT count(*)::int FROM "ReviewCard" c WHERE c."userId" = u.id
    AND c.due ${strict ? Prisma.sql`<` : Prisma.sql`<=`} ${by}::timestamp(3) AND ${scheduled(at)})`;

/** Does learner `u` have a card overdue by more than a day? (the "has overdue cards" filter) */
export function hasOverdueSql() {
  const { at, overdue } = moments();
  return Prisma.sql`EXISTS (SELECT 1 FROM "ReviewCard" c WHERE c."userId" = u.id
    AND c.due < ${overdue}::timestamp(3) AND ${scheduled(at)})`;
}

const forgottenCard = Prisma.sql`c."userId" = u.id AND c."knowledgePointId" IS NOT NULL
  AND (SELECT l.rating FROM "ReviewLog" l WHERE l."cardId" = c.id ORDER BY l."reviewedAt" DESC LIMIT 1) = 1`;

/** Is learner `u` forgetting a knowledge point? (the "has forgotten points" filter) */
export const hasForgottenSql = () => Prisma.sql`EXISTS (SELECT 1 FROM "ReviewCard" c WHERE ${forgottenCard})`;

/**
 * One figure of learner `u` (the alias of "User" in the caller's query) as SQL, the same one the
 * page shows, to sort by. Cost is estimateCost over the month's sums at the configured prices.
 */
export function learnerFigureSql(sort: Exclude<LearnerSort, "newest">): Prisma.Sql {
  const { at, overdue, month } = moments();
  switch (sort) {
    case "lastActive":
      return Prisma.sql`GREATEST(
        (SELECT max(j."createdAt") FROM "AiRuntimeJob" j WHERE j."userId" = u.id),
        (SELECT max(q."answeredAt") FROM "QuizAttempt" q WHERE q."userId" = u.id),
        (SELECT max(l."reviewedAt") FROM "ReviewLog" l WHERE l."userId" = u.id))`;
    case "due":
      return dueSql(at, at, false);
    case "overdue":
      return dueSql(at, overdue, true);
    case "forgotten":
      return Prisma.sql`(SELECT count(DISTINCT c."knowledgePointId")::int FROM "ReviewCard" c WHERE ${forgottenCard})`;
    case "jobs":
      return Prisma.sql`(SELECT count(*)::int FROM "AiRuntimeJob" j WHERE j."userId" = u.id AND j."createdAt" >= ${month}::timestamp(3))`;
    case "cost":
      return Prisma.sql`(SELECT coalesce(
          (sum(x."promptTokens") - least(sum(x."cacheHitTokens"), sum(x."promptTokens"))) * ${costConfig.pricePromptPerMTok}::float8
          + least(sum(x."cacheHitTokens"), sum(x."promptTokens")) * ${costConfig.pricePromptCacheHitPerMTok}::float8
          + sum(x."completionTokens") * ${costConfig.priceCompletionPerMTok}::float8, 0) / 1000000
        FROM "JobUsage" x WHERE x."userId" = u.id AND x."createdAt" >= ${month}::timestamp(3))`;
  }
}

/**
 * What a teacher or operator sees per learner on the console's Learners page, for the learners of
 * one page: language, last activity (a job, a quiz answer or a review), cards due now and overdue
 * by more than a day (not suspended or buried), knowledge points being forgotten (a card whose
 * latest review was Again), jobs and estimated provider cost this UTC month. One statement of
 * per-learner index lookups (userId-leading indexes), so its time follows the page size, not the
 * number of learners.
 */
export async function learnerStats(userIds: string[]): Promise<Map<string, LearnerStats>> {
  if (!userIds.length) return new Map();
  const { month } = moments();
  const rows = await getDb().$queryRaw<
    {
      id: string;
      locale: string | null;
      lastJob: Date | null;
      lastQuiz: Date | null;
      lastReview: Date | null;
      due: number;
      overdue: number;
      forgotten: number;
      jobs: number;
      prompt: number;
      completion: number;
      hits: number;
    }[]
  >(Prisma.sql`
    SELECT u.id, u.locale,
      (SELECT max(j."createdAt") FROM "AiRuntimeJob" j WHERE j."userId" = u.id) AS "lastJob",
      (SELECT max(q."answeredAt") FROM "QuizAttempt" q WHERE q."userId" = u.id) AS "lastQuiz",
      (SELECT max(l."reviewedAt") FROM "ReviewLog" l WHERE l."userId" = u.id) AS "lastReview",
      ${learnerFigureSql("due")} AS due,
      ${learnerFigureSql("overdue")} AS overdue,
      ${learnerFigureSql("forgotten")} AS forgotten,
      ${learnerFigureSql("jobs")} AS jobs,
      coalesce((SELECT sum(x."promptTokens") FROM "JobUsage" x WHERE x."userId" = u.id AND x."createdAt" >= ${month}::timestamp(3)), 0)::float8 AS prompt,
      coalesce((SELECT sum(x."completionTokens") FROM "JobUsage" x WHERE x."userId" = u.id AND x."createdAt" >= ${month}::timestamp(3)), 0)::float8 AS completion,
      coalesce((SELECT sum(x."cacheHitTokens") FROM "JobUsage" x WHERE x."userId" = u.id AND x."createdAt" >= ${month}::timestamp(3)), 0)::float8 AS hits
    FROM "User" u WHERE u.id IN (${Prisma.join(userIds)})`);
  return new Map(
    rows.map((r) => {
      const times = [r.lastJob, r.lastQuiz, r.lastReview].filter((d): d is Date => d !== null);
      return [
        r.id,
        {
          locale: r.locale,
          lastActiveAt: times.length ? new Date(Math.max(...times.map((d) => d.getTime()))) : null,
          dueCards: r.due,
          overdueCards: r.overdue,
          forgottenPoints: r.forgotten,
          jobsThisMonth: r.jobs,
          costThisMonth: estimateCost(r.prompt, r.completion, r.hits),
        },
      ];
    }),
  );
}
