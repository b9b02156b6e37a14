import { z } from "zod";
import { getReviewQueue, rateCard } from "../../review/cards";
import { RATINGS } from "../../review/fsrs";
import { userProcedure, router } from "../init";
import { isoDate } from "../schemas";

const cardSchema = z.object({
  id: z.string(),
  kind: z.enum(["flashcard", "question"]),
  front: z.string(),
  back: z.string(),
  due: isoDate,
  reps: z.number().int(),
  lapses: z.number().int(),
  state: z.number().int(),
  knowledgePointTitle: z.string().nullable(),
});

/** Spaced repetition (server/review): the cards due across the learner's decks and wrong questions, and their ratings. */
export const reviewRouter = router({
  queue: userProcedure
    .input(z.void())
    .output(
      z.object({
        due: z.object({ flashcards: z.number().int(), questions: z.number().int(), total: z.number().int() }),
        cardsInSchedule: z.number().int(),
        nextDueAt: isoDate.nullable(),
        cards: z.array(cardSchema),
      }),
    )
    .query(({ ctx }) => getReviewQueue(ctx.user.id)),

  rate: userProcedure
    .input(z.object({ cardId: z.string().min(1).max(64), rating: z.enum(RATINGS), reps: z.number().int().min(0) }))
    .output(
      z.object({
        cardId: z.string(),
        due: isoDate,
        state: z.number().int(),
        reps: z.number().int(),
        lapses: z.number().int(),
      }),
    )
    .mutation(({ ctx, input }) => rateCard(ctx.user.id, input.cardId, input.rating, input.reps)),
});
