import { Prisma } from "../generated/prisma/client";
import type { DbOrTx } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { gradeOf, replay, type RatingName } from "./fsrs";

export type PlatformReview = {
  externalId: string;
  cardExternalId: string;
  front: string;
  back: string;
  kind: "flashcard" | "question";
  knowledgePointExternalId?: string;
  rating: RatingName;
  reviewedAt: string;
};

/**
 * Reviews one platform card may hold. A new review is placed in the card's log by its time and the
 * card's schedule replayed from the log (late reviews give the schedule reviews in order give), so
 * a call's work grows with the card's log: capped here, a call's work is bounded whatever history
 * was sent before it (docs/platform-api.md). Years of daily reviews of one card stay far below it.
 */
export const MAX_CARD_REVIEWS = 500;

/**
 * Stores the platform's reviews (POST /api/v1/learners/{id}/activity) inside the activity call's
 * transaction: each card is created or updated by the platform's card id, each review is one
 * ReviewLog row by the platform's review id (a repeat is skipped, so a retried call stores nothing
 * twice), and every card that got a new review has its FSRS state replayed from its log, oldest
 * first, under its row lock: reviews that arrive late or out of order give the same schedule as
 * reviews sent in order. Only the log rows from the earliest new review on are rewritten (the ones
 * before it keep their state). A card whose log would pass MAX_CARD_REVIEWS refuses the whole call
 * (409 CARD_LOG_FULL, nothing stored). Rows are taken in one order in every call — cards by their
 * external id, reviews by theirs — so two calls cannot deadlock. Answers how many reviews were new.
 */
export async function storePlatformReviews(
  tx: DbOrTx,
  userId: string,
  reviews: PlatformReview[],
  kpIds: Map<string, string>,
): Promise<number> {
  if (!reviews.length) return 0;
  // One row per card (the last review's text wins; a knowledge point left out keeps the one named
  // before), in id order so concurrent calls lock alike.
  const byCard = new Map<string, PlatformReview>();
  for (const r of reviews) {
    const kp = r.knowledgePointExternalId ?? byCard.get(r.cardExternalId)?.knowledgePointExternalId;
    byCard.set(r.cardExternalId, { ...r, knowledgePointExternalId: kp });
  }
  const cards = [...byCard.values()].sort((a, b) => (a.cardExternalId < b.cardExternalId ? -1 : 1));
  const at = now();
  const cardRows = await tx.$queryRaw<{ id: string; externalId: string }[]>`
    INSERT INTO "ReviewCard" (id, "userId", "externalId", kind, "knowledgePointId", front, back, due)
    SELECT gen_random_uuid()::text, ${userId}, x.ext, x.kind::"ReviewCardKind", kp.id, x.front, x.back, ${at}::timestamp(3)
    FROM unnest(${cards.map((c) => c.cardExternalId)}::text[], ${cards.map((c) => c.kind)}::text[],
                ${cards.map((c) => (c.knowledgePointExternalId ? (kpIds.get(c.knowledgePointExternalId) ?? null) : null))}::text[],
                ${cards.map((c) => c.front)}::text[], ${cards.map((c) => c.back)}::text[]) AS x(ext, kind, kp, front, back)
    -- Joined, not trusted: a knowledge point deleted meanwhile leaves the card without one.
    LEFT JOIN "KnowledgePoint" kp ON kp.id = x.kp
    ON CONFLICT ("userId", "externalId") DO UPDATE
      SET front = EXCLUDED.front, back = EXCLUDED.back, kind = EXCLUDED.kind,
          "knowledgePointId" = COALESCE(EXCLUDED."knowledgePointId", "ReviewCard"."knowledgePointId")
    RETURNING id, "externalId"`;
  const cardId = new Map(cardRows.map((c) => [c.externalId, c.id]));
  const inserted = await tx.$queryRaw<{ id: string; cardId: string }[]>`
    INSERT INTO "ReviewLog" (id, "userId", "cardId", "externalId", rating, state, "reviewedAt", stability, difficulty, "scheduledDays", due)
    SELECT gen_random_uuid()::text, ${userId}, x.card, x.ext, x.rating, 0, x.at::timestamptz AT TIME ZONE 'UTC', 0, 0, 0,
           x.at::timestamptz AT TIME ZONE 'UTC'
    -- Of a review sent twice in one call the first is kept; rows are inserted in the order of their
    -- ids (the same in every call), so two calls with the same reviews wait, never deadlock.
    FROM (SELECT DISTINCT ON (ext) * FROM unnest(${reviews.map((r) => r.externalId)}::text[],
                ${reviews.map((r) => cardId.get(r.cardExternalId)!)}::text[],
                ${reviews.map((r) => gradeOf(r.rating))}::int[], ${reviews.map((r) => r.reviewedAt)}::text[])
            WITH ORDINALITY AS u(ext, card, rating, at, n) ORDER BY ext, n) AS x
    ORDER BY x.ext
    ON CONFLICT ("userId", "externalId") DO NOTHING
    RETURNING id, "cardId"`;
  const touched = [...new Set(inserted.map((r) => r.cardId))].sort();
  if (touched.length) await replayCards(tx, touched, new Set(inserted.map((r) => r.id)), reviews);
  return inserted.length;
}

type LogRow = { id: string; cardId: string; rating: number; reviewedAt: Date };

/**
 * Recomputes the FSRS state of `cardIds` from their logs, and the state of each log row from the
 * earliest of `fresh` (the rows this call stored) on; refuses a log past MAX_CARD_REVIEWS.
 */
async function replayCards(tx: DbOrTx, cardIds: string[], fresh: Set<string>, sent: PlatformReview[]) {
  const cards = await tx.$queryRaw<{ id: string; externalId: string; createdAt: Date }[]>`
    SELECT id, "externalId", "createdAt" FROM "ReviewCard" WHERE id = ANY(${cardIds}::text[]) ORDER BY id FOR UPDATE`;
  const counts = await tx.$queryRaw<{ cardId: string; n: number }[]>`
    SELECT "cardId", count(*)::int AS n FROM "ReviewLog" WHERE "cardId" = ANY(${cardIds}::text[]) GROUP BY "cardId"`;
  const full = counts
    .filter((c) => c.n > MAX_CARD_REVIEWS)
    .map((c) => cards.find((k) => k.id === c.cardId)!.externalId);
  if (full.length) {
    const at = (ext: string) => sent.findIndex((r) => r.cardExternalId === ext);
    throw new AppError(
      "CARD_LOG_FULL",
      `a card holds at most ${MAX_CARD_REVIEWS} reviews; this call would pass it (nothing was stored)`,
      full.slice(0, 20).map((ext) => ({
        path: `reviews.${Math.max(0, at(ext))}.cardExternalId`,
        message: `card ${JSON.stringify(ext)} would hold more than ${MAX_CARD_REVIEWS} reviews`,
      })),
    );
  }
  const logs = await tx.$queryRaw<LogRow[]>`
    SELECT id, "cardId", rating, "reviewedAt" FROM "ReviewLog"
    WHERE "cardId" = ANY(${cardIds}::text[]) ORDER BY "cardId", "reviewedAt", id`;
  const logsOf = new Map<string, LogRow[]>();
  for (const l of logs) {
    const own = logsOf.get(l.cardId);
    if (own) own.push(l);
    else logsOf.set(l.cardId, [l]);
  }
  const logUpdates: { id: string; state: number; stability: number; difficulty: number; days: number; due: Date }[] =
    [];
  const cardUpdates = cards.map((card) => {
    const own = logsOf.get(card.id) ?? [];
    const { memory, steps } = replay(
      card.createdAt,
      own.map((l) => ({ id: l.id, rating: l.rating as 1 | 2 | 3 | 4, reviewedAt: l.reviewedAt })),
    );
    // Steps before the first new review keep the state they were stored with.
    const from = steps.findIndex((s) => fresh.has(s.id));
    for (const s of from < 0 ? [] : steps.slice(from)) {
      logUpdates.push({
        id: s.id,
        state: s.before,
        stability: s.after.stability,
        difficulty: s.after.difficulty,
        days: s.after.scheduledDays,
        due: s.after.due,
      });
    }
    return { id: card.id, ...memory };
  });
  await tx.$executeRaw`
    UPDATE "ReviewLog" l SET state = x.state, stability = x.stability, difficulty = x.difficulty,
      "scheduledDays" = x.days, due = x.due
    FROM unnest(${logUpdates.map((u) => u.id)}::text[], ${logUpdates.map((u) => u.state)}::int[],
                ${logUpdates.map((u) => u.stability)}::float8[], ${logUpdates.map((u) => u.difficulty)}::float8[],
                ${logUpdates.map((u) => u.days)}::int[], ${logUpdates.map((u) => u.due)}::timestamp(3)[])
         AS x(id, state, stability, difficulty, days, due)
    WHERE l.id = x.id`;
  await tx.$executeRaw(Prisma.sql`
    UPDATE "ReviewCard" c SET due = x.due, stability = x.stability, difficulty = x.difficulty,
      "scheduledDays" = x.days, "learningSteps" = x.steps, reps = x.reps, lapses = x.lapses, state = x.state,
      "lastReview" = x.last
    FROM unnest(${cardUpdates.map((c) => c.id)}::text[], ${cardUpdates.map((c) => c.due)}::timestamp(3)[],
                ${cardUpdates.map((c) => c.stability)}::float8[], ${cardUpdates.map((c) => c.difficulty)}::float8[],
                ${cardUpdates.map((c) => c.scheduledDays)}::int[], ${cardUpdates.map((c) => c.learningSteps)}::int[],
                ${cardUpdates.map((c) => c.reps)}::int[], ${cardUpdates.map((c) => c.lapses)}::int[],
                ${cardUpdates.map((c) => c.state)}::int[], ${cardUpdates.map((c) => c.lastReview)}::timestamp(3)[])
         AS x(id, due, stability, difficulty, days, steps, reps, lapses, state, last)
    WHERE c.id = x.id`);
}
