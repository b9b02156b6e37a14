import { Prisma } from "../generated/prisma/client";
import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { deckCards } from "../job-types/flashcard-generation/schema";
import { gradeOf, newMemory, rate, type MemoryColumns, type RatingName } from "./fsrs";

/** Cards one review session loads at most; the next ones come when these are rated. */
export const REVIEW_BATCH = 20;

/**
 * Puts the cards of every succeeded flashcard deck of the learner that is not in their schedule
 * yet into it, due now (a second caller's rows conflict on the card's unique key and are skipped).
 * Decks come in when the learner first looks at the schedule after the deck is made, whichever
 * door started the job. The deck's cards are read through the flashcard type (deckCards); a
 * card's knowledge point is kept only when the learner still has it.
 */
export async function enrolDecks(userId: string, db: DbOrTx = getDb()): Promise<number> {
  const decks = await db.$queryRaw<{ id: string; output: unknown }[]>`
    SELECT j.id, r.output
    FROM "AiRuntimeJob" j JOIN "AiRuntimeResult" r ON r."jobId" = j.id
    WHERE j."userId" = ${userId} AND j."jobType" = 'flashcard_generation' AND j.status = 'succeeded'
      AND NOT EXISTS (SELECT 1 FROM "ReviewCard" x
                      WHERE x."userId" = j."userId" AND x."sourceJobId" = j.id AND x.kind = 'flashcard')`;
  if (!decks.length) return 0;
  const cards = decks.flatMap((d) =>
    deckCards(d.output).map((card, i) => ({ ...card, sourceJobId: d.id, itemIndex: i })),
  );
  const owned = new Set(
    (
      await db.knowledgePoint.findMany({
        where: { userId, id: { in: [...new Set(cards.map((c) => c.knowledgePointId))] } },
        select: { id: true },
      })
    ).map((k) => k.id),
  );
  const due = now();
  const { count } = await db.reviewCard.createMany({
    data: cards.map((c) => ({
      userId,
      kind: "flashcard" as const,
      knowledgePointId: owned.has(c.knowledgePointId) ? c.knowledgePointId : null,
      sourceJobId: c.sourceJobId,
      itemIndex: c.itemIndex,
      front: c.front,
      back: c.back,
      ...newMemory(due),
    })),
    skipDuplicates: true,
  });
  return count;
}

type WrongQuestion = {
  index: number;
  stem: string;
  options: string[];
  answer: string;
  explanation: string;
  knowledgePointId: string;
};

/** A question's card: the stem (with its options) to recall from, the answer and why on the back. */
export function questionCard(q: WrongQuestion) {
  return {
    front: q.options.length ? `${q.stem}\n${q.options.map((o) => `· ${o}`).join("\n")}` : q.stem,
    back: q.explanation ? `${q.answer}\n\n${q.explanation}` : q.answer,
  };
}

/**
 * Quiz questions the learner got wrong join their schedule, due now; a question already in it
 * (wrong in an earlier play of the same quiz) stays as it is.
 */
export async function enrolWrongQuestions(userId: string, jobId: string, wrong: WrongQuestion[], db: DbOrTx = getDb()) {
  if (!wrong.length) return 0;
  const due = now();
  const { count } = await db.reviewCard.createMany({
    data: wrong.map((q) => ({
      userId,
      kind: "question" as const,
      knowledgePointId: q.knowledgePointId,
      sourceJobId: jobId,
      itemIndex: q.index,
      ...questionCard(q),
      ...newMemory(due),
    })),
    skipDuplicates: true,
  });
  return count;
}

const cardSelect = {
  id: true,
  kind: true,
  front: true,
  back: true,
  due: true,
  reps: true,
  lapses: true,
  state: true,
  lastReview: true,
  knowledgePoint: { select: { id: true, title: true } },
} as const;

/** What is due now: counts by kind, when the next card falls due, and the first cards to review. */
export async function getReviewQueue(userId: string, limit = REVIEW_BATCH) {
  await enrolDecks(userId);
  const at = now();
  const db = getDb();
  const [byKind, next, cards, total] = await Promise.all([
    db.reviewCard.groupBy({ by: ["kind"], where: { userId, due: { lte: at } }, _count: { _all: true } }),
    db.reviewCard.findFirst({ where: { userId, due: { gt: at } }, orderBy: { due: "asc" }, select: { due: true } }),
    db.reviewCard.findMany({
      where: { userId, due: { lte: at } },
      orderBy: [{ due: "asc" }, { sourceJobId: "asc" }, { itemIndex: "asc" }, { id: "asc" }],
      take: limit,
      select: cardSelect,
    }),
    db.reviewCard.count({ where: { userId } }),
  ]);
  const count = (kind: string) => byKind.find((k) => k.kind === kind)?._count._all ?? 0;
  return {
    due: {
      flashcards: count("flashcard"),
      questions: count("question"),
      total: count("flashcard") + count("question"),
    },
    cardsInSchedule: total,
    nextDueAt: next?.due ?? null,
    cards: cards.map(({ knowledgePoint, ...c }) => ({ ...c, knowledgePointTitle: knowledgePoint?.title ?? null })),
  };
}

/**
 * Rates one of the learner's cards: the FSRS state moves on and a ReviewLog row records it, in
 * one transaction under the card's row lock. `reps` is the card's review count the learner saw:
 * a card rated meanwhile (a second tab, a key pressed twice) is REVIEW_ALREADY_RATED and changes
 * nothing, so one look at a card is never counted twice.
 */
export async function rateCard(userId: string, cardId: string, rating: RatingName, reps: number) {
  const at = now();
  return getDb().$transaction(async (tx) => {
    const [card] = await tx.$queryRaw<(MemoryColumns & { id: string })[]>(Prisma.sql`
      SELECT id, due, stability, difficulty, "scheduledDays", "learningSteps", reps, lapses, state, "lastReview"
      FROM "ReviewCard" WHERE id = ${cardId} AND "userId" = ${userId} FOR UPDATE`);
    if (!card) throw new AppError("NOT_FOUND", "no such card in your reviews");
    if (card.reps !== reps) throw new AppError("REVIEW_ALREADY_RATED", "this card was rated meanwhile");
    const after = rate(card, gradeOf(rating), at);
    await tx.reviewCard.update({ where: { id: cardId }, data: after });
    await tx.reviewLog.create({
      data: {
        userId,
        cardId,
        rating: gradeOf(rating),
        state: card.state,
        reviewedAt: at,
        stability: after.stability,
        difficulty: after.difficulty,
        scheduledDays: after.scheduledDays,
        due: after.due,
      },
    });
    return { cardId, due: after.due, state: after.state, reps: after.reps, lapses: after.lapses };
  });
}
