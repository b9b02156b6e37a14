import { z } from "zod";
import { getReviewQueue, rateCard } from "../../review/cards";
import { addDeck, deckStatus, dismissDeck } from "../../review/decks";
import {
  assertScope,
  buryCard,
  deleteCard,
  editCard,
  resetCard,
  setReviewLimits,
  suspendCard,
} from "../../review/manage";
import { RATINGS } from "../../review/fsrs";
import { todayFor } from "../../review/today";
import { userProcedure, router } from "../init";
import { isoDate } from "../schemas";

const id = z.string().min(1).max(64);
const ms = z.number().int();
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
  intervals: z.object({ again: ms, hard: ms, good: ms, easy: ms }),
});
const count = z.number().int();
const decisionSchema = z.object({
  decision: z.enum(["added", "dismissed"]),
  added: count,
  updated: count,
  skipped: count,
});
const managedCardSchema = z.object({
  id: z.string(),
  front: z.string(),
  back: z.string(),
  due: isoDate,
  reps: count,
  state: count,
  suspended: z.boolean(),
  buriedUntil: isoDate.nullable(),
  buried: z.boolean(),
});
/** An IANA time zone name as the browser reports it (the learner's day for burying and daily limits). */
const timeZone = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9_+\-/]+$/)
  .optional();
const cardText = z.string().trim().min(1).max(4000);

/** Spaced repetition (server/review): the learner's queue, ratings, decks joining it and the cards they manage. */
export const reviewRouter = router({
  queue: userProcedure
    .input(z.object({ materialId: id.optional(), knowledgePointId: id.optional(), timeZone }).optional())
    .output(
      z.object({
        due: z.object({ flashcards: count, questions: count, total: count }),
        today: z.object({ new: count, learning: count, review: count, total: count }),
        laterToday: count,
        setAside: z.object({ suspended: count, buried: count }),
        limits: z.object({ newPerDay: count, reviewsPerDay: count, newDoneToday: count, reviewsDoneToday: count }),
        cardsInSchedule: count,
        nextDueAt: isoDate.nullable(),
        pendingDecks: z.array(
          z.object({ jobId: z.string(), createdAt: isoDate, cards: count, title: z.string().nullable() }),
        ),
        cards: z.array(cardSchema),
      }),
    )
    .query(async ({ ctx, input }) => {
      const scope = { materialId: input?.materialId, knowledgePointId: input?.knowledgePointId };
      await assertScope(ctx.user.id, scope);
      return getReviewQueue(ctx.user.id, { scope, timeZone: input?.timeZone });
    }),

  rate: userProcedure
    .input(z.object({ cardId: id, rating: z.enum(RATINGS), reps: z.number().int().min(0) }))
    .output(z.object({ cardId: z.string(), due: isoDate, state: count, reps: count, lapses: count }))
    .mutation(({ ctx, input }) => rateCard(ctx.user.id, input.cardId, input.rating, input.reps)),

  /** The learner's answer to a finished deck: add its cards (no front twice for one point) or not now. */
  addDeck: userProcedure
    .input(z.object({ jobId: id }))
    .output(decisionSchema)
    .mutation(({ ctx, input }) => addDeck(ctx.user.id, input.jobId)),
  dismissDeck: userProcedure
    .input(z.object({ jobId: id }))
    .output(decisionSchema)
    .mutation(({ ctx, input }) => dismissDeck(ctx.user.id, input.jobId)),
  /** A deck's answer and the cards it put in the schedule (managed from the deck). */
  deck: userProcedure
    .input(z.object({ jobId: id }))
    .output(
      z.object({
        decision: decisionSchema.nullable(),
        cards: z.array(managedCardSchema.extend({ itemIndex: count.nullable() })),
      }),
    )
    .query(({ ctx, input }) => deckStatus(ctx.user.id, input.jobId)),

  edit: userProcedure
    .input(z.object({ cardId: id, front: cardText, back: cardText }))
    .output(managedCardSchema)
    .mutation(({ ctx, input }) => editCard(ctx.user.id, input.cardId, input)),
  suspend: userProcedure
    .input(z.object({ cardId: id, suspended: z.boolean() }))
    .output(managedCardSchema)
    .mutation(({ ctx, input }) => suspendCard(ctx.user.id, input.cardId, input.suspended)),
  bury: userProcedure
    .input(z.object({ cardId: id, buried: z.boolean(), timeZone }))
    .output(managedCardSchema)
    .mutation(({ ctx, input }) => buryCard(ctx.user.id, input.cardId, input.buried, input.timeZone ?? "UTC")),
  reset: userProcedure
    .input(z.object({ cardId: id }))
    .output(managedCardSchema)
    .mutation(({ ctx, input }) => resetCard(ctx.user.id, input.cardId)),
  delete: userProcedure
    .input(z.object({ cardId: id }))
    .output(z.object({ id: z.string(), deleted: z.literal(true) }))
    .mutation(({ ctx, input }) => deleteCard(ctx.user.id, input.cardId)),

  /** The top of the learner page: the cards Review offers now and later in her day, and the plan's first step not yet ticked. */
  today: userProcedure
    .input(z.object({ timeZone }).optional())
    .output(
      z.object({
        now: count,
        laterToday: count,
        firstStep: z
          .object({
            jobId: z.string(),
            index: count,
            title: z.string(),
            estimatedMinutes: count,
            degraded: z.boolean(),
          })
          .nullable(),
      }),
    )
    .query(({ ctx, input }) => todayFor(ctx.user.id, input?.timeZone)),

  /** Review's daily limits (0 new cards a day: only cards already started). */
  setLimits: userProcedure
    .input(z.object({ newPerDay: z.number().int().min(0).max(9999), reviewsPerDay: z.number().int().min(0).max(9999) }))
    .output(z.object({ newPerDay: count, reviewsPerDay: count }))
    .mutation(({ ctx, input }) => setReviewLimits(ctx.user.id, input)),
});
