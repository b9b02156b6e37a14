import { z } from "zod";
import { listPendingAnswers, listQuizPlays, markAnswer, submitQuizAttempt } from "../../learning/quiz-attempts";
import { userProcedure, router } from "../init";
import { isoDate, jobIdInput } from "../schemas";

const markId = z.string().min(1).max(64);

/**
 * Playing a generated quiz: what the app can check is graded on the server and saved as quiz
 * attempts; an answer in her own words waits for her own mark (`mark`), which is what counts.
 */
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
        pending: z.number().int(),
        saved: z.number().int(),
        answeredAt: isoDate,
        results: z.array(
          z.object({
            index: z.number().int(),
            response: z.string(),
            grading: z.enum(["choice", "number", "term", "self"]),
            /** null: an answer in her own words, waiting for her mark. */
            correct: z.boolean().nullable(),
            answer: z.string(),
            explanation: z.string(),
            /** The id to mark it by (null when nothing waits: graded by the app, or its point is gone). */
            markId: z.string().nullable(),
          }),
        ),
      }),
    )
    .mutation(({ ctx, input }) => submitQuizAttempt(ctx.user.id, input.jobId, input.answers)),

  /** Her own mark of an answer in her own words, after comparing it with the model answer. */
  mark: userProcedure
    .input(z.object({ markId, correct: z.boolean() }))
    .output(z.object({ markId: z.string(), index: z.number().int(), correct: z.boolean() }))
    .mutation(({ ctx, input }) => markAnswer(ctx.user.id, input.markId, input.correct)),

  /** Her answers still waiting for her mark (one quiz's, or all), with the model answers. */
  pending: userProcedure
    .input(z.object({ jobId: jobIdInput.shape.jobId.optional() }))
    .output(
      z.object({
        items: z.array(
          z.object({
            markId: z.string(),
            jobId: z.string(),
            index: z.number().int(),
            question: z.string(),
            response: z.string(),
            answer: z.string(),
            explanation: z.string(),
            answeredAt: isoDate,
          }),
        ),
      }),
    )
    .query(({ ctx, input }) => listPendingAnswers(ctx.user.id, input.jobId)),

  /** Earlier plays of this quiz, newest first. */
  plays: userProcedure
    .input(jobIdInput)
    .output(
      z.object({
        items: z.array(
          z.object({
            answeredAt: isoDate,
            score: z.number().int(),
            total: z.number().int(),
            pending: z.number().int(),
          }),
        ),
      }),
    )
    .query(({ ctx, input }) => listQuizPlays(ctx.user.id, input.jobId)),
});
