import { z } from "zod";
import { getFlashcardMarks, setFlashcardMark } from "../../learning/flashcard-marks";
import { recordFlashcardStudy } from "../../learning/flashcard-study";
import { userProcedure, router } from "../init";
import { isoDate, jobIdInput } from "../schemas";

const marksSchema = z.object({ jobId: z.string(), known: z.array(z.number().int()) });

/** Which cards of a generated deck the learner already knows, and the study time of reviewing it. */
export const flashcardsRouter = router({
  marks: userProcedure
    .input(jobIdInput)
    .output(marksSchema)
    .query(({ ctx, input }) => getFlashcardMarks(ctx.user.id, input.jobId)),

  setMark: userProcedure
    .input(jobIdInput.extend({ cardIndex: z.number().int().min(0).max(49), known: z.boolean() }))
    .output(marksSchema)
    .mutation(({ ctx, input }) => setFlashcardMark(ctx.user.id, input.jobId, input.cardIndex, input.known)),

  /** A card flipped: the deck's study session opens or stretches (a StudySession the next snapshot reads). */
  study: userProcedure
    .input(jobIdInput)
    .output(z.object({ sessionId: z.string(), startedAt: isoDate, minutes: z.number().int() }))
    .mutation(({ ctx, input }) => recordFlashcardStudy(ctx.user.id, input.jobId)),
});
