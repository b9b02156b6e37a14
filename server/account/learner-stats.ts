import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { estimateCost } from "../jobs/prices";

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
  const at = now();
  const overdue = new Date(at.getTime() - DAY_MS);
  const month = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
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
      (SELECT count(*)::int FROM "ReviewCard" c WHERE c."userId" = u.id AND c.due <= ${at}::timestamp(3)
         AND NOT c.suspended AND (c."buriedUntil" IS NULL OR c."buriedUntil" <= ${at}::timestamp(3))) AS due,
      (SELECT count(*)::int FROM "ReviewCard" c WHERE c."userId" = u.id AND c.due < ${overdue}::timestamp(3)
         AND NOT c.suspended AND (c."buriedUntil" IS NULL OR c."buriedUntil" <= ${at}::timestamp(3))) AS overdue,
      (SELECT count(DISTINCT c."knowledgePointId")::int FROM "ReviewCard" c
         WHERE c."userId" = u.id AND c."knowledgePointId" IS NOT NULL
           AND (SELECT l.rating FROM "ReviewLog" l WHERE l."cardId" = c.id ORDER BY l."reviewedAt" DESC LIMIT 1) = 1) AS forgotten,
      (SELECT count(*)::int FROM "AiRuntimeJob" j WHERE j."userId" = u.id AND j."createdAt" >= ${month}::timestamp(3)) AS jobs,
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
