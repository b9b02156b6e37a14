import { Prisma } from "../generated/prisma/client";
import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { deckCards } from "../job-types/flashcard-generation/schema";
import { newMemory } from "./fsrs";
import { withBuried } from "./manage";
import { sourceKeyOf, tombstoned } from "./identity";

/** Decks waiting for the learner's answer that the Review section lists at most. */
export const PENDING_DECKS = 5;

type DeckCard = { front: string; back: string; knowledgePointId: string | null };

/**
 * The cards of one of the learner's succeeded decks, read through the flashcard type (deckCards),
 * with a knowledge point only when the learner still has it.
 */
async function cardsOfDeck(tx: DbOrTx, userId: string, jobId: string): Promise<DeckCard[]> {
  const result = await tx.aiRuntimeResult.findUnique({ where: { jobId }, select: { output: true } });
  const cards = deckCards(result?.output);
  const owned = new Set(
    (
      await tx.knowledgePoint.findMany({
        where: { userId, id: { in: [...new Set(cards.map((c) => c.knowledgePointId))] } },
        select: { id: true },
      })
    ).map((k) => k.id),
  );
  return cards.map((c) => ({ ...c, knowledgePointId: owned.has(c.knowledgePointId) ? c.knowledgePointId : null }));
}

async function assertDeck(tx: DbOrTx, userId: string, jobId: string) {
  const job = await tx.aiRuntimeJob.findFirst({
    where: { id: jobId, userId, jobType: "flashcard_generation", status: "succeeded" },
    select: { id: true },
  });
  if (!job) throw new AppError("NOT_FOUND", "no such finished flashcard deck");
}

export type DeckDecision = { decision: "added" | "dismissed"; added: number; updated: number; skipped: number };

/**
 * The learner's answer "add this deck to Review": each card joins the schedule, due now, unless
 * the card is already there — the same card by its identity (server/review/identity.ts: job type,
 * knowledge point, generated front), from an earlier deck, a wrong question or the platform,
 * whatever she has made of its text — or she deleted it (a tombstone): such a card is skipped,
 * its back updated only when the new deck's differs and she never edited it; a suspended card
 * stays suspended. A front twice in one deck counts once. One transaction under the learner's
 * review lock, so two tabs (or two decks added at once) never schedule one card twice; a deck
 * already added keeps its first answer; a deck answered "not now" can be added later.
 */
export async function addDeck(userId: string, jobId: string): Promise<DeckDecision> {
  return getDb().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`review-cards:${userId}`}))`;
    const answered = await tx.reviewDeck.findUnique({
      where: { userId_jobId: { userId, jobId } },
      select: { decision: true, added: true, updated: true, skipped: true },
    });
    if (answered?.decision === "added") return answered;
    await assertDeck(tx, userId, jobId);
    const cards = (await cardsOfDeck(tx, userId, jobId)).map((c) => ({
      ...c,
      sourceKey: sourceKeyOf("flashcard", c.knowledgePointId, c.front),
    }));
    const keys = cards.map((c) => c.sourceKey);
    const points = [...new Set(cards.map((c) => c.knowledgePointId))];
    const [existing, deleted] = await Promise.all([
      tx.reviewCard.findMany({
        where: {
          userId,
          OR: [
            { sourceKey: { in: keys } },
            // A card she has not edited (a wrong question, the platform's, one stored before
            // identities) is also the same card when its text is.
            {
              editedAt: null,
              OR: [
                { knowledgePointId: { in: points.filter((p): p is string => p !== null) } },
                ...(points.includes(null) ? [{ knowledgePointId: null }] : []),
              ],
            },
          ],
        },
        select: { id: true, front: true, back: true, knowledgePointId: true, sourceKey: true, editedAt: true },
      }),
      tombstoned(tx, userId, keys),
    ]);
    const scheduled = new Map<string, { id: string; back: string; editedAt: Date | null }>();
    for (const c of existing) if (c.sourceKey) scheduled.set(c.sourceKey, c);
    for (const c of existing) {
      const byText = sourceKeyOf("flashcard", c.knowledgePointId, c.front);
      if (!c.editedAt && !scheduled.has(byText)) scheduled.set(byText, c);
    }
    const due = now();
    const fresh: Prisma.ReviewCardCreateManyInput[] = [];
    let updated = 0;
    let skipped = 0;
    for (const [itemIndex, card] of cards.entries()) {
      const same = scheduled.get(card.sourceKey);
      if (deleted.has(card.sourceKey)) skipped++;
      else if (!same) {
        fresh.push({ userId, kind: "flashcard", sourceJobId: jobId, itemIndex, ...card, ...newMemory(due) });
        scheduled.set(card.sourceKey, { id: "", back: card.back, editedAt: null });
      } else if (same.id && !same.editedAt && same.back !== card.back) {
        await tx.reviewCard.update({ where: { id: same.id }, data: { back: card.back } });
        same.back = card.back;
        updated++;
      } else skipped++;
    }
    const { count: added } = await tx.reviewCard.createMany({ data: fresh, skipDuplicates: true });
    const counts = { decision: "added" as const, added, updated, skipped: skipped + fresh.length - added };
    return tx.reviewDeck.upsert({
      where: { userId_jobId: { userId, jobId } },
      create: { userId, jobId, ...counts },
      update: { ...counts, decidedAt: now() },
      select: { decision: true, added: true, updated: true, skipped: true },
    });
  });
}

/** The learner's answer "not now": the deck no longer asks; it can still be added from the deck (an added deck stays added). */
export async function dismissDeck(userId: string, jobId: string): Promise<DeckDecision> {
  return getDb().$transaction(async (tx) => {
    await assertDeck(tx, userId, jobId);
    await tx.reviewDeck.createMany({ data: [{ userId, jobId, decision: "dismissed" }], skipDuplicates: true });
    return tx.reviewDeck.findUniqueOrThrow({
      where: { userId_jobId: { userId, jobId } },
      select: { decision: true, added: true, updated: true, skipped: true },
    });
  });
}

/** Finished decks the learner has not answered yet, newest first, with their card counts. */
export async function pendingDecks(userId: string, limit = PENDING_DECKS) {
  const rows = await getDb().$queryRaw<{ jobId: string; createdAt: Date; cards: number; title: string | null }[]>(
    Prisma.sql`
      SELECT j.id AS "jobId", j."createdAt",
             COALESCE(jsonb_array_length(CASE WHEN jsonb_typeof(r.output->'flashcards') = 'array'
                                              THEN r.output->'flashcards' END), 0)::int AS cards,
             COALESCE(m.title, kp.title) AS title
      FROM "AiRuntimeJob" j
      JOIN "AiRuntimeResult" r ON r."jobId" = j.id
      LEFT JOIN "Material" m ON j."targetType" = 'material' AND m.id = j."targetId"
      LEFT JOIN "KnowledgePoint" kp ON j."targetType" = 'knowledge_point' AND kp.id = j."targetId"
      WHERE j."userId" = ${userId} AND j."jobType" = 'flashcard_generation' AND j.status = 'succeeded'
        AND NOT EXISTS (SELECT 1 FROM "ReviewDeck" d WHERE d."userId" = j."userId" AND d."jobId" = j.id)
      ORDER BY j."createdAt" DESC, j.id DESC
      LIMIT ${limit}`,
  );
  return rows;
}

/** One deck's answer (null: not answered yet) and the cards it put in the schedule. */
export async function deckStatus(userId: string, jobId: string) {
  const db = getDb();
  await assertDeck(db, userId, jobId);
  const [decision, cards] = await Promise.all([
    db.reviewDeck.findUnique({
      where: { userId_jobId: { userId, jobId } },
      select: { decision: true, added: true, updated: true, skipped: true },
    }),
    db.reviewCard.findMany({
      where: { userId, sourceJobId: jobId, kind: "flashcard" },
      orderBy: { itemIndex: "asc" },
      select: {
        id: true,
        itemIndex: true,
        front: true,
        back: true,
        suspended: true,
        buriedUntil: true,
        due: true,
        reps: true,
        state: true,
      },
    }),
  ]);
  return { decision, cards: cards.map(withBuried) };
}
