import { z } from "zod";
import { difficultySchema, id, questionTypeSchema, text } from "../fields";

export const quizSchema = z.strictObject({
  questions: z
    .array(
      z.strictObject({
        type: questionTypeSchema,
        stem: text(1000),
        options: z.array(text(300)).max(8),
        answer: text(1000),
        explanation: text(2000),
        knowledgePointId: id,
        difficulty: difficultySchema,
      }),
    )
    .min(1)
    .max(20),
});
export type Quiz = z.infer<typeof quizSchema>;

export const quizParamsSchema = z.strictObject({
  count: z.number().int().min(1).max(20).default(5),
  difficulty: z.enum(["easy", "medium", "hard", "mixed"]).default("mixed"),
  questionTypes: z
    .array(questionTypeSchema)
    .min(1)
    .max(3)
    .refine((a) => new Set(a).size === a.length, "question types must be distinct")
    .default(["single_choice", "true_false"]),
});
export type QuizParams = z.infer<typeof quizParamsSchema>;
