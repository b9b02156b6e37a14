import { getDb } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { newMemory } from "./fsrs";
import { localMidnight } from "./day";

/**
 * What a learner does to one of their own cards, from Review or from its deck: edit its text,
 * suspend it (never due until unsuspended), bury it until their next day, reset it to a new card
 * (due now; its review log stays, as Anki keeps a forgotten card's history) or delete it with its
 * log. Another learner's card is NOT_FOUND and nothing changes.
 */
const shape = {
  id: true,
  front: true,
  back: true,
  due: true,
  reps: true,
  state: true,
  suspended: true,
  buriedUntil: true,
} as const;

async function change<T>(userId: string, cardId: string, data: T & object) {
  const { count } = await getDb().reviewCard.updateMany({ where: { id: cardId, userId }, data });
  if (!count) throw new AppError("NOT_FOUND", "no such card in your reviews");
  return withBuried(await getDb().reviewCard.findUniqueOrThrow({ where: { id: cardId }, select: shape }));
}

/** `buried`: set aside until a time still to come. */
export const withBuried = <C extends { buriedUntil: Date | null }>(c: C) => ({
  ...c,
  buried: c.buriedUntil !== null && c.buriedUntil > now(),
});

export const editCard = (userId: string, cardId: string, text: { front: string; back: string }) =>
  change(userId, cardId, { front: text.front.trim(), back: text.back.trim() });

export const suspendCard = (userId: string, cardId: string, suspended: boolean) =>
  change(userId, cardId, { suspended });

/** Not due before the start of the learner's next day (`timeZone`: their IANA zone); `false` digs it up. */
export const buryCard = (userId: string, cardId: string, buried: boolean, timeZone: string) =>
  change(userId, cardId, { buriedUntil: buried ? localMidnight(now(), timeZone, 1) : null });

export const resetCard = (userId: string, cardId: string) =>
  change(userId, cardId, { ...newMemory(now()), suspended: false, buriedUntil: null });

export async function deleteCard(userId: string, cardId: string) {
  const { count } = await getDb().reviewCard.deleteMany({ where: { id: cardId, userId } });
  if (!count) throw new AppError("NOT_FOUND", "no such card in your reviews");
  return { id: cardId, deleted: true as const };
}

/** A review scope names the learner's own material or knowledge point; anyone else's is NOT_FOUND. */
export async function assertScope(userId: string, scope: { materialId?: string; knowledgePointId?: string }) {
  const db = getDb();
  if (
    scope.materialId &&
    !(await db.material.findFirst({ where: { id: scope.materialId, userId }, select: { id: true } }))
  )
    throw new AppError("NOT_FOUND", "no such material");
  if (
    scope.knowledgePointId &&
    !(await db.knowledgePoint.findFirst({ where: { id: scope.knowledgePointId, userId }, select: { id: true } }))
  )
    throw new AppError("NOT_FOUND", "no such knowledge point");
}

/** Review's daily limits, per learner (defaults as Anki's: 20 new cards, 200 reviews a day). */
export async function setReviewLimits(userId: string, limits: { newPerDay: number; reviewsPerDay: number }) {
  const user = await getDb().user.update({
    where: { id: userId },
    data: { reviewNewPerDay: limits.newPerDay, reviewMaxPerDay: limits.reviewsPerDay },
    select: { reviewNewPerDay: true, reviewMaxPerDay: true },
  });
  return { newPerDay: user.reviewNewPerDay, reviewsPerDay: user.reviewMaxPerDay };
}
