import { Prisma } from "../generated/prisma/client";
import { getDb, type DbOrTx } from "../db";
import { localMidnight, validTimeZone } from "../review/day";
import { dueBy } from "../review/due";

/** Which of the learner's cards a count covers: all, one material's points, or one point. */
export type CardScope = { materialId?: string; knowledgePointId?: string };

/** The learner's cards in the scope, set aside or not. */
function inScope(userId: string, scope: CardScope): Prisma.ReviewCardWhereInput {
  return {
    userId,
    ...(scope.knowledgePointId ? { knowledgePointId: scope.knowledgePointId } : {}),
    ...(scope.materialId && !scope.knowledgePointId ? { knowledgePoint: { materialId: scope.materialId } } : {}),
  };
}

/** Cards in the schedule the learner has not set aside at `at`: not suspended, not buried past `at`. */
export function activeCards(userId: string, at: Date, scope: CardScope = {}): Prisma.ReviewCardWhereInput {
  return { ...inScope(userId, scope), suspended: false, OR: [{ buriedUntil: null }, { buriedUntil: { lte: at } }] };
}

export type Limits = { newPerDay: number; reviewsPerDay: number; newDoneToday: number; reviewsDoneToday: number };
export type Left = { new: number; learning: number; review: number; total: number };

/**
 * The cards of `due` a learner may still review today, by kind, as Anki counts them: new cards
 * and reviews of learnt cards capped by the daily limits less what the review log holds since the
 * learner's local midnight (`dayStart`); learning cards are never held back.
 */
export async function leftToday(
  userId: string,
  due: Prisma.ReviewCardWhereInput,
  dayStart: Date,
  db: DbOrTx = getDb(),
) {
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
  const left = {
    new: Math.min(inState(0), Math.max(0, user.reviewNewPerDay - done(0))),
    learning: inState(1, 3),
    review: Math.min(inState(2), Math.max(0, user.reviewMaxPerDay - done(2))),
  };
  const limits: Limits = {
    newPerDay: user.reviewNewPerDay,
    reviewsPerDay: user.reviewMaxPerDay,
    newDoneToday: done(0),
    reviewsDoneToday: done(2),
  };
  return { left: { ...left, total: left.new + left.learning + left.review } as Left, limits };
}

/**
 * The learner model's facts about her cards today, the ONE count every view states (Review, the
 * page's top line, the digest, the snapshot a job sees):
 * - `now`: cards due now (due ≤ `at`), not suspended, not buried, that today's limits still let
 *   her review, by kind (new, learning, review) — what Review's start button offers;
 * - `laterToday`: the further cards that fall due before her day ends (local midnight in her time
 *   zone), under the same limits — shown beside `now`, labelled, never added into it unlabelled;
 * - `dueNow`: every card due now and not set aside, before the limits, by card kind;
 * - `newLeft`: new cards she may still start today (the new-card limit less those started);
 * - `setAside`: suspended cards and cards buried until later (never counted as due);
 * - `limits`, `inSchedule` (all her cards in scope), `nextDueAt` (the next card not yet due).
 */
export async function cardFacts(
  userId: string,
  options: { at: Date; timeZone?: string | null; scope?: CardScope },
  db: DbOrTx = getDb(),
) {
  const { at, scope = {} } = options;
  const zone = validTimeZone(options.timeZone);
  const dayStart = localMidnight(at, zone);
  const endOfDay = localMidnight(at, zone, 1);
  const active = activeCards(userId, at, scope);
  const dueNowWhere: Prisma.ReviewCardWhereInput = { AND: [active, { due: dueBy(at) }] };
  const all = inScope(userId, scope);
  const [nowLeft, dayLeft, byKind, next, inSchedule, suspended, buried] = await Promise.all([
    leftToday(userId, dueNowWhere, dayStart, db),
    leftToday(userId, { AND: [active, { due: { lt: endOfDay } }] }, dayStart, db),
    db.reviewCard.groupBy({ by: ["kind"], where: dueNowWhere, _count: { _all: true } }),
    db.reviewCard.findFirst({
      where: { AND: [active, { due: { gt: at } }] },
      orderBy: { due: "asc" },
      select: { due: true },
    }),
    db.reviewCard.count({ where: all }),
    db.reviewCard.count({ where: { ...all, suspended: true } }),
    db.reviewCard.count({ where: { ...all, suspended: false, buriedUntil: { gt: at } } }),
  ]);
  const kind = (k: string) => byKind.find((x) => x.kind === k)?._count._all ?? 0;
  return {
    timeZone: zone,
    dayStart,
    endOfDay,
    now: nowLeft.left,
    laterToday: Math.max(0, dayLeft.left.total - nowLeft.left.total),
    dueNow: { flashcards: kind("flashcard"), questions: kind("question"), total: kind("flashcard") + kind("question") },
    newLeft: Math.max(0, nowLeft.limits.newPerDay - nowLeft.limits.newDoneToday),
    setAside: { suspended, buried },
    limits: nowLeft.limits,
    inSchedule,
    nextDueAt: next?.due ?? null,
  };
}

export type CardFacts = Awaited<ReturnType<typeof cardFacts>>;
