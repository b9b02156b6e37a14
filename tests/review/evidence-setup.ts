import { getDb } from "@/server/db";
import { advanceClock, now } from "@/server/clock";
import { rateCard } from "@/server/review/cards";
import { addDeck } from "@/server/review/decks";
import type { RatingName } from "@/server/review/fsrs";
import { createLearner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";

const DAY = 86_400_000;

/**
 * Holds this process's clock at noon (UTC) of today, twelve hours from either day boundary: review
 * evidence is as of the end of the capture's UTC day, so a test that captures twice never sees the
 * day turn between them, however slow the machine.
 */
export function holdClockAtNoon() {
  const t = Date.now();
  advanceClock(Math.floor(t / DAY) * DAY + DAY / 2 - t);
}

/**
 * A learner who answered "Light reactions" and "Calvin cycle" right three times each (strong by
 * their quizzes), never tried "Chlorophyll", and has a generated deck of four cards in their
 * schedule: two of each of the first two points, all due and never reviewed.
 */
export async function learnerWithCards() {
  const learner = await createLearner();
  const db = getDb();
  const [light, calvin, chlorophyll] = learner.knowledgePoints;
  await db.quizAttempt.deleteMany({ where: { userId: learner.user.id } });
  await db.quizAttempt.createMany({
    data: [light!, calvin!].flatMap((kp) =>
      [1, 2, 3].map((n) => ({
        userId: learner.user.id,
        knowledgePointId: kp.id,
        question: `Q${n} on ${kp.title}`,
        correct: true,
        answeredAt: new Date(now().getTime() - n * DAY),
      })),
    ),
  });
  const flashcards = [light!, light!, calvin!, calvin!].map((kp, i) => ({
    front: `Card ${i + 1} on ${kp.title}`,
    back: "Back",
    knowledgePointId: kp.id,
    tags: ["bio"],
  }));
  const deck = await succeededJob(learner, "flashcard_generation", { count: 4 }, { flashcards });
  await addDeck(learner.user.id, deck.id);
  return { learner, light: light!, calvin: calvin!, chlorophyll: chlorophyll! };
}

/** Rates every card of a knowledge point once. */
export async function rateAll(userId: string, knowledgePointId: string, rating: RatingName) {
  const cards = await getDb().reviewCard.findMany({ where: { userId, knowledgePointId }, orderBy: { id: "asc" } });
  for (const c of cards) await rateCard(userId, c.id, rating, c.reps);
  return cards.length;
}
