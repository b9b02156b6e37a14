import { getDb } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { newMemory } from "./fsrs";
import { localMidnight } from "./day";
import { sourceKeyOf } from "./identity";
import { boundedText, LIMITS } from "../security/learner-text";

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

/** A card's text as she wrote it, cleaned like all learner text (no controls, no bidi overrides). */
const cardText = (s: string) => boundedText(s, LIMITS.reviewCardText).trim();

/** The identity a generated card had before this change, when it has none stored yet: the one its unedited text gives. */
async function keyBefore(userId: string, cardId: string) {
  const card = await getDb().reviewCard.findFirst({
    where: { id: cardId, userId },
    select: { kind: true, knowledgePointId: true, front: true, sourceKey: true, sourceJobId: true, editedAt: true },
  });
  if (!card) throw new AppError("NOT_FOUND", "no such card in your reviews");
  if (card.sourceKey || !card.sourceJobId || card.editedAt) return { card, key: card.sourceKey };
  return { card, key: sourceKeyOf(card.kind, card.knowledgePointId, card.front) };
}

/**
 * Her text for the card: it keeps its identity (a card stored before identities takes the one its
 * text gave until now), and `editedAt` records the edit, so no later deck overwrites or doubles it.
 */
export async function editCard(userId: string, cardId: string, text: { front: string; back: string }) {
  const front = cardText(text.front);
  const back = cardText(text.back);
  if (!front || !back) throw new AppError("INVALID_REQUEST", "a card needs a front and a back");
  const { card, key } = await keyBefore(userId, cardId);
  const free = key && !card.sourceKey && !(await getDb().reviewCard.findFirst({ where: { userId, sourceKey: key } }));
  return change(userId, cardId, { front, back, editedAt: now(), ...(free ? { sourceKey: key } : {}) });
}

export const suspendCard = (userId: string, cardId: string, suspended: boolean) =>
  change(userId, cardId, { suspended });

/** Not due before the start of the learner's next day (`timeZone`: their IANA zone); `false` digs it up. */
export const buryCard = (userId: string, cardId: string, buried: boolean, timeZone: string) =>
  change(userId, cardId, { buriedUntil: buried ? localMidnight(now(), timeZone, 1) : null });

export const resetCard = (userId: string, cardId: string) =>
  change(userId, cardId, { ...newMemory(now()), suspended: false, buriedUntil: null });

/** Deleted with its log; a generated card leaves a tombstone, so no later deck or quiz brings it back. */
export async function deleteCard(userId: string, cardId: string) {
  const { key } = await keyBefore(userId, cardId);
  return getDb().$transaction(async (tx) => {
    const { count } = await tx.reviewCard.deleteMany({ where: { id: cardId, userId } });
    if (!count) throw new AppError("NOT_FOUND", "no such card in your reviews");
    if (key) await tx.reviewCardTombstone.createMany({ data: [{ userId, sourceKey: key }], skipDuplicates: true });
    return { id: cardId, deleted: true as const };
  });
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
