import { Prisma } from "../generated/prisma/client";
import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { gradeOf, intervals, newMemory, rate, type MemoryColumns, type RatingName } from "./fsrs";
import { localMidnight, validTimeZone } from "./day";
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
export type ReviewScope = { materialId?: string; knowledgePointId?: string };

export type QueueOptions = { scope?: ReviewScope; timeZone?: string; limit?: number };

/** Cards in the schedule the learner has not set aside: not suspended, not buried past `at`. */
export function activeCards(userId: string, at: Date, scope: ReviewScope = {}): Prisma.ReviewCardWhereInput {
  return {
    userId,
    suspended: false,
    OR: [{ buriedUntil: null }, { buriedUntil: { lte: at } }],
    ...(scope.knowledgePointId ? { knowledgePointId: scope.knowledgePointId } : {}),
    ...(scope.materialId && !scope.knowledgePointId ? { knowledgePoint: { materialId: scope.materialId } } : {}),
  };
}

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

/**
 * The due cards (`due`: the caller's scope and time) a learner may still review today, by kind of
 * card, as Anki counts them: new cards and reviews of learnt cards capped by the daily limits less
 * what the review log holds since the learner's local midnight (`dayStart`); learning cards are
 * never held back. The Review view and the page's top line (server/review/today.ts) both count so.
 */
export async function leftToday(userId: string, due: Prisma.ReviewCardWhereInput, dayStart: Date) {
  const db = getDb();
  const [user, byState, doneToday] = await Promise.all([
    db.user.findUniqueOrThrow({ where: { id: userId }, select: { reviewNewPerDay: true, reviewMaxPerDay: true } }),
    db.reviewCard.groupBy({ by: ["state"], where: due, _count: { _all: true } }),
    db.reviewLog.groupBy({
      by: ["state"],
      where: { userId, reviewedAt: { gte: dayStart }, state: { in: [0, 2] } },
      _count: { _all: true },
    }),
  ]);
  const inState = (...states: number[]) =>
    byState.filter((s) => states.includes(s.state)).reduce((n, s) => n + s._count._all, 0);
  const done = (state: number) => doneToday.find((s) => s.state === state)?._count._all ?? 0;
  return {
    left: {
      new: Math.min(inState(0), Math.max(0, user.reviewNewPerDay - done(0))),
      learning: inState(1, 3),
      review: Math.min(inState(2), Math.max(0, user.reviewMaxPerDay - done(2))),
    },
    limits: {
      newPerDay: user.reviewNewPerDay,
      reviewsPerDay: user.reviewMaxPerDay,
      newDoneToday: done(0),
      reviewsDoneToday: done(2),
    },
  };
}

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
 * What the learner reviews now, as Anki counts it: due cards not set aside, within the scope, split
 * into new (never reviewed), learning (on a short step, or relearning after a lapse) and review
 * cards. The daily limits (the learner's settings) cap new cards first shown today and reviews of
 * learnt cards today, counted from the review log since their local midnight; learning cards are
 * never held back. Each card comes with the interval each rating would give it (ts-fsrs), for the
 * buttons. Also: counts of due cards by kind, the cards in the schedule, when the next card falls
 * due, and decks waiting for the learner's answer.
 */
export async function getReviewQueue(userId: string, options: QueueOptions = {}) {
  const { scope = {}, limit = REVIEW_BATCH } = options;
  const at = now();
  const db = getDb();
  const active = activeCards(userId, at, scope);
  const due: Prisma.ReviewCardWhereInput = { AND: [active, { due: dueBy(at) }] };
  const dayStart = localMidnight(at, validTimeZone(options.timeZone));
  const [{ left, limits }, byKind, next, total, pending] = await Promise.all([
    leftToday(userId, due, dayStart),
    db.reviewCard.groupBy({ by: ["kind"], where: due, _count: { _all: true } }),
    db.reviewCard.findFirst({
      where: { AND: [active, { due: { gt: at } }] },
      orderBy: { due: "asc" },
      select: { due: true },
    }),
    db.reviewCard.count({ where: { userId } }),
    pendingDecks(userId),
  ]);
  const [learning, review, fresh] = await Promise.all([
    readCards({ AND: [due, { state: { in: [1, 3] } }] }, Math.min(limit, left.learning)),
    readCards({ AND: [due, { state: 2 }] }, Math.min(limit, left.review)),
    readCards({ AND: [due, { state: 0 }] }, Math.min(limit, left.new)),
  ]);
  const cards = [...learning, ...review, ...fresh].sort(byDue).slice(0, limit);
  const kind = (k: string) => byKind.find((x) => x.kind === k)?._count._all ?? 0;
  return {
    due: { flashcards: kind("flashcard"), questions: kind("question"), total: kind("flashcard") + kind("question") },
    today: { ...left, total: left.new + left.learning + left.review },
    limits,
    cardsInSchedule: total,
    nextDueAt: next?.due ?? null,
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
