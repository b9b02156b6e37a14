import { z } from "zod";
import { difficultySchema, id, questionTypeSchema, text } from "../fields";
import { catalogueEntry } from "../define";

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

/** The type as the browser and the contract see it: its label, targets, params, output and quality rules. */
export const quizGenerationEntry = catalogueEntry({
  label: {
    title: "Practice quiz",
    blurb: "Questions to answer here; your answers count towards your next analysis.",
  },
  params: quizParamsSchema,
  output: { version: "v2", schema: quizSchema },
  qualityRules: {
    count_mismatch: "Exactly `params.count` questions.",
    duplicate_stem:
      "No two questions share a stem (compared after Unicode NFKC normalisation, case- and space-insensitively, ignoring spaces next to Chinese characters and the final punctuation).",
    question_type_not_requested: "Every question's `type` is one of `params.questionTypes`.",
    difficulty_mismatch: "Unless `params.difficulty` is `mixed`, every question has that difficulty.",
    too_few_options: "A single-choice or true/false question has at least two options.",
    options_repeat: "A question's options are distinct.",
    one_correct_option:
      "A single-choice or true/false question has exactly one option equal to its `answer`; short-answer questions are exempt from the option rules.",
    model_answer_unsupported:
      "A short-answer question answered in the learner's own words (not a number or a term) has a model answer the material supports: at least 60 % of its words (Chinese: character pairs) are in its knowledge point's passage — the text under a heading naming the point, else the material's sentences naming its title's distinctive words — or its description. Checked when the snapshot holds the point's material and it has such a passage.",
  },
});
