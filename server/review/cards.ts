import { Prisma } from "../generated/prisma/client";
import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { gradeOf, intervals, newMemory, rate, type MemoryColumns, type RatingName } from "./fsrs";
import { activeCards, cardFacts, type CardScope } from "../learner-model/cards";
import { pendingDecks } from "./decks";
import { dueBy } from "./due";
import { sourceKeyOf, tombstoned } from "./identity";

/** Cards one review session loads at most; the next ones come when these are rated. */
export const REVIEW_BATCH = 20;

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
 * (wrong in an earlier play of this quiz or of another asking the same, whatever she has made of
 * its text since) stays as it is, and one she deleted stays deleted (server/review/identity.ts).
 */
export async function enrolWrongQuestions(userId: string, jobId: string, wrong: WrongQuestion[], db: DbOrTx = getDb()) {
  if (!wrong.length) return 0;
  const due = now();
  const cards = wrong.map((q) => {
    const card = questionCard(q);
    return { q, card, sourceKey: sourceKeyOf("question", q.knowledgePointId, card.front) };
  });
  const deleted = await tombstoned(
    db,
    userId,
    cards.map((c) => c.sourceKey),
  );
  const { count } = await db.reviewCard.createMany({
    data: cards
      .filter((c) => !deleted.has(c.sourceKey))
      .map(({ q, card, sourceKey }) => ({
        userId,
        kind: "question" as const,
        knowledgePointId: q.knowledgePointId,
        sourceJobId: jobId,
        itemIndex: q.index,
        sourceKey,
        ...card,
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
  stability: true,
  difficulty: true,
  scheduledDays: true,
  learningSteps: true,
  reps: true,
  lapses: true,
  state: true,
  lastReview: true,
  sourceJobId: true,
  itemIndex: true,
  knowledgePoint: { select: { id: true, title: true } },
} as const;

/** Which of the learner's cards a review covers: all, one material's points, or one point. */
export type ReviewScope = CardScope;

export type QueueOptions = { scope?: ReviewScope; timeZone?: string; limit?: number };

type QueueRow = Awaited<ReturnType<typeof readCards>>[number];
const readCards = (where: Prisma.ReviewCardWhereInput, take: number) =>
  take > 0
    ? getDb().reviewCard.findMany({
        where,
        orderBy: [{ due: "asc" }, { sourceJobId: "asc" }, { itemIndex: "asc" }, { id: "asc" }],
        take,
        select: cardSelect,
      })
    : Promise.resolve([]);

/** Oldest due first; a deck's cards in their order. */
function byDue(a: QueueRow, b: QueueRow) {
  return (
    a.due.getTime() - b.due.getTime() ||
    (a.sourceJobId ?? "\uffff").localeCompare(b.sourceJobId ?? "\uffff") ||
    (a.itemIndex ?? 0) - (b.itemIndex ?? 0) ||
    a.id.localeCompare(b.id)
  );
}

/**
 * What the learner reviews now, as Anki counts it and as the learner model (cardFacts) states it
 * to every view: due cards not set aside, within the scope, split into new (never reviewed),
 * learning (on a short step, or relearning after a lapse) and review cards, under the daily limits
 * (new cards first shown today and reviews of learnt cards today, counted from the review log since
 * their local midnight; learning cards are never held back), and how many more fall due later in
 * their day. Each card comes with the interval each rating would give it (ts-fsrs), for the
 * buttons. Also: counts of due cards by kind, the cards in the schedule, when the next card falls
 * due, and decks waiting for the learner's answer.
 */
export async function getReviewQueue(userId: string, options: QueueOptions = {}) {
  const { scope = {}, limit = REVIEW_BATCH } = options;
  const at = now();
  const due: Prisma.ReviewCardWhereInput = { AND: [activeCards(userId, at, scope), { due: dueBy(at) }] };
  const [facts, pending] = await Promise.all([
    cardFacts(userId, { at, timeZone: options.timeZone, scope }),
    pendingDecks(userId),
  ]);
  const left = facts.now;
  const [learning, review, fresh] = await Promise.all([
    readCards({ AND: [due, { state: { in: [1, 3] } }] }, Math.min(limit, left.learning)),
    readCards({ AND: [due, { state: 2 }] }, Math.min(limit, left.review)),
    readCards({ AND: [due, { state: 0 }] }, Math.min(limit, left.new)),
  ]);
  const cards = [...learning, ...review, ...fresh].sort(byDue).slice(0, limit);
  return {
    due: facts.dueNow,
    today: facts.now,
    laterToday: facts.laterToday,
    setAside: facts.setAside,
    limits: facts.limits,
    cardsInSchedule: facts.inSchedule,
    nextDueAt: facts.nextDueAt,
    pendingDecks: pending,
    cards: cards.map((c) => ({
      id: c.id,
      kind: c.kind,
      front: c.front,
      back: c.back,
      due: c.due,
      reps: c.reps,
      lapses: c.lapses,
      state: c.state,
      knowledgePointTitle: c.knowledgePoint?.title ?? null,
      intervals: intervals(c, at),
    })),
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
