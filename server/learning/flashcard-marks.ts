import { getDb } from "../db";
import { AppError } from "../errors";
import { flashcardsSchema } from "../jobs/schemas";
import { ownJobOutput } from "./own-output";
import { recordFlashcardStudy } from "./flashcard-study";

/** The deck of one of the learner's own succeeded flashcard jobs; anything else is not found. */
async function ownDeckSize(userId: string, jobId: string): Promise<number> {
  const words = { otherType: "this job did not generate flashcards", noResult: "this deck has no cards yet" };
  return flashcardsSchema.parse(await ownJobOutput(userId, jobId, "flashcard_generation", words)).flashcards.length;
}

async function knownIndexes(jobId: string) {
  const rows = await getDb().flashcardMark.findMany({
    where: { jobId },
    select: { cardIndex: true },
    orderBy: { cardIndex: "asc" },
  });
  return rows.map((r) => r.cardIndex);
}

export async function getFlashcardMarks(userId: string, jobId: string) {
  await ownDeckSize(userId, jobId);
  return { jobId, known: await knownIndexes(jobId) };
}

/** Marks a card known (or not); repeating a mark changes nothing. A mark is study time (flashcard-study.ts). */
export async function setFlashcardMark(userId: string, jobId: string, cardIndex: number, known: boolean) {
  const size = await ownDeckSize(userId, jobId);
  if (cardIndex >= size) throw new AppError("INVALID_REQUEST", `the deck has ${size} cards`);
  const db = getDb();
  if (known) {
    await db.flashcardMark.upsert({
      where: { jobId_cardIndex: { jobId, cardIndex } },
      create: { jobId, cardIndex, userId },
      update: {},
    });
  } else {
    await db.flashcardMark.deleteMany({ where: { jobId, cardIndex } });
  }
  await recordFlashcardStudy(userId, jobId);
  return { jobId, known: await knownIndexes(jobId) };
}
