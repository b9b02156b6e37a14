import { Prisma } from "../generated/prisma/client";
import type { DbOrTx } from "../db";
import type { ReviewEvidence } from "../job-types/fields";
import { retrievability, type MemoryColumns } from "../review/fsrs";
import { dueBy } from "../review/due";
import { activeCards } from "../learner-model/cards";

const DAY_MS = 86_400_000;
/** Reviewed cards whose predicted recall is averaged, most recently reviewed first. */
export const MAX_RECALL_CARDS = 2000;

/** The end of `at`'s UTC day: predicted recall is as of then (one figure for captures on one day). */
export function evidenceAsOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

type Counts = { kp: string; cards: number; lapses: number; last: Date | null };
type LogCounts = { kp: string; reviews: number; again: number; forgotten: number };
type Reviewed = MemoryColumns & { kp: string };

/**
 * What the learner's review log says about each of these knowledge points (null: all of theirs)
 * that has cards in the schedule (server/review): counts from every card and log row (aggregated
 * in SQL); the cards due at `at` and not set aside (suspended, buried), as the learner model and
 * Review count them, so an analysis never calls a card due that Review does not show; the mean predicted recall
 * of the most recently reviewed cards (bounded) as of the end of `at`'s UTC day. Ordered by
 * knowledge point id; null when none of them has a card.
 */
export async function readReviewEvidence(
  db: DbOrTx,
  userId: string,
  kpIds: string[] | null,
  at: Date,
): Promise<ReviewEvidence | null> {
  if (kpIds && !kpIds.length) return null;
  const asOf = evidenceAsOf(at);
  const ofPoints = kpIds
    ? Prisma.sql`c."knowledgePointId" = ANY(${kpIds}::text[])`
    : Prisma.sql`c."knowledgePointId" IS NOT NULL`;
  const [counts, due, logs, reviewed] = await Promise.all([
    db.$queryRaw<Counts[]>(Prisma.sql`
      SELECT c."knowledgePointId" AS kp, count(*)::int AS cards,
             coalesce(sum(c.lapses), 0)::int AS lapses, max(c."lastReview") AS last
      FROM "ReviewCard" c
      WHERE c."userId" = ${userId} AND ${ofPoints}
      GROUP BY 1`),
    db.reviewCard.groupBy({
      by: ["knowledgePointId"],
      where: {
        AND: [activeCards(userId, at), { knowledgePointId: kpIds ? { in: kpIds } : { not: null }, due: dueBy(at) }],
      },
      _count: { _all: true },
    }),
    db.$queryRaw<LogCounts[]>(Prisma.sql`
      SELECT kp, count(*)::int AS reviews, count(*) FILTER (WHERE rating = 1)::int AS again,
             count(*) FILTER (WHERE rating = 1 AND latest = 1)::int AS forgotten
      FROM (SELECT c."knowledgePointId" AS kp, l.rating,
                   row_number() OVER (PARTITION BY l."cardId" ORDER BY l."reviewedAt" DESC, l.id DESC) AS latest
            FROM "ReviewLog" l JOIN "ReviewCard" c ON c.id = l."cardId"
            WHERE l."userId" = ${userId} AND c."userId" = ${userId}
              AND ${ofPoints}) x
      GROUP BY kp`),
    db.$queryRaw<Reviewed[]>(Prisma.sql`
      SELECT c."knowledgePointId" AS kp, due, stability, difficulty, "scheduledDays", "learningSteps", reps, lapses,
             state, "lastReview"
      FROM "ReviewCard" c
      WHERE c."userId" = ${userId} AND ${ofPoints}
        AND c."lastReview" IS NOT NULL AND c.reps > 0
      ORDER BY c."lastReview" DESC, c.id
      LIMIT ${MAX_RECALL_CARDS}`),
  ]);
  if (!counts.length) return null;
  const byKp = new Map(logs.map((l) => [l.kp, l]));
  const dueOf = new Map(due.map((d) => [d.knowledgePointId, d._count._all]));
  const recall = new Map<string, number[]>();
  for (const c of reviewed) {
    const list = recall.get(c.kp) ?? [];
    list.push(retrievability(c, asOf));
    recall.set(c.kp, list);
  }
  return {
    asOf: asOf.toISOString(),
    knowledgePoints: counts
      .sort((a, b) => (a.kp < b.kp ? -1 : a.kp > b.kp ? 1 : 0))
      .map((c) => {
        const log = byKp.get(c.kp);
        const r = recall.get(c.kp);
        return {
          knowledgePointId: c.kp,
          cards: c.cards,
          dueCards: dueOf.get(c.kp) ?? 0,
          reviews: log?.reviews ?? 0,
          again: log?.again ?? 0,
          forgotten: log?.forgotten ?? 0,
          lapses: c.lapses,
          retrievability: r?.length ? round3(r.reduce((s, x) => s + x, 0) / r.length) : null,
          lastReviewedAt: c.last ? c.last.toISOString() : null,
        };
      }),
  };
}

const round3 = (x: number) => Math.min(1, Math.max(0, Math.round(x * 1000) / 1000));
