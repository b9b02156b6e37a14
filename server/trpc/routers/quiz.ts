import { z } from "zod";
import { listQuizPlays, submitQuizAttempt } from "../../learning/quiz-attempts";
import { userProcedure, router } from "../init";
import { isoDate, jobIdInput } from "../schemas";

/** Playing a generated quiz: answers are graded on the server and saved as quiz attempts. */
export const quizRouter = router({
  submit: userProcedure
    .input(
      jobIdInput.extend({
        answers: z
          .array(z.object({ index: z.number().int().min(0).max(19), response: z.string().max(2000) }))
          .min(1)
          .max(20),
      }),
    )
    .output(
      z.object({
        score: z.number().int(),
        total: z.number().int(),
        saved: z.number().int(),
        answeredAt: isoDate,
        results: z.array(
          z.object({
            index: z.number().int(),
            response: z.string(),
            correct: z.boolean(),
            answer: z.string(),
            explanation: z.string(),
          }),
        ),
      }),
    )
    .mutation(({ ctx, input }) => submitQuizAttempt(ctx.user.id, input.jobId, input.answers)),

  /** Earlier plays of this quiz, newest first. */
  plays: userProcedure
    .input(jobIdInput)
    .output(
      z.object({ items: z.array(z.object({ answeredAt: isoDate, score: z.number().int(), total: z.number().int() })) }),
    )
    .query(({ ctx, input }) => listQuizPlays(ctx.user.id, input.jobId)),
});
