import { z } from "zod";

/**
 * The job contract shared by the API, the pipeline and every Runtime: parameters per job type,
 * the snapshot a job reads, and the `v1` output of each job type. Pure zod, no server imports.
 */
export const jobTypeSchema = z.enum([
  "learning_state_analysis",
  "weak_point_analysis",
  "next_action_planning",
  "quiz_generation",
  "flashcard_generation",
]);
export type JobTypeName = z.infer<typeof jobTypeSchema>;

export const questionTypeSchema = z.enum(["single_choice", "true_false", "short_answer"]);
export const difficultySchema = z.enum(["easy", "medium", "hard"]);

const noParams = z.strictObject({});
export const paramsSchemas = {
  learning_state_analysis: noParams,
  weak_point_analysis: noParams,
  next_action_planning: z.strictObject({
    /** Minutes the learner has for the plan; the plan fits inside it. */
    timeBudgetMinutes: z.number().int().min(10).max(600).default(60),
  }),
  quiz_generation: z.strictObject({
    count: z.number().int().min(1).max(20).default(5),
    difficulty: z.enum(["easy", "medium", "hard", "mixed"]).default("mixed"),
    questionTypes: z
      .array(questionTypeSchema)
      .min(1)
      .max(3)
      .refine((a) => new Set(a).size === a.length, "question types must be distinct")
      .default(["single_choice", "true_false"]),
  }),
  flashcard_generation: z.strictObject({
    count: z.number().int().min(1).max(50).default(10),
  }),
} satisfies Record<JobTypeName, z.ZodType>;

export type JobParams<T extends JobTypeName> = z.infer<(typeof paramsSchemas)[T]>;

const id = z.string().min(1).max(64);
const text = (max: number) => z.string().trim().min(1).max(max);
const unit = z.number().min(0).max(1);

export const snapshotContentSchema = z.object({
  version: z.literal(1),
  learner: z.object({ id, name: z.string() }),
  target: z.object({ type: z.enum(["user", "material", "knowledge_point"]), id, title: z.string() }),
  materials: z.array(z.object({ id, title: z.string(), content: z.string() })),
  knowledgePoints: z.array(z.object({ id, title: z.string(), description: z.string(), materialId: id.nullable() })),
  quizAttempts: z.array(
    z.object({ knowledgePointId: id, question: z.string(), correct: z.boolean(), answeredAt: z.iso.datetime() }),
  ),
  studySessions: z.array(
    z.object({ materialId: id.nullable(), startedAt: z.iso.datetime(), minutes: z.number().int().min(0) }),
  ),
});
export type SnapshotContent = z.infer<typeof snapshotContentSchema>;

export const learningAnalysisSchema = z.strictObject({
  summary: text(2000),
  overallMastery: unit,
  engagementLevel: z.enum(["low", "medium", "high"]),
  strengths: z.array(text(300)).max(20),
  risks: z.array(text(300)).max(20),
  knowledgePoints: z
    .array(
      z.strictObject({
        knowledgePointId: id,
        title: text(300),
        mastery: unit,
        confidence: unit,
        attempts: z.number().int().min(0),
      }),
    )
    .max(500),
});

export const weakPointsSchema = z.strictObject({
  weakPoints: z
    .array(
      z.strictObject({
        knowledgePointId: id,
        title: text(300),
        severity: z.enum(["low", "medium", "high"]),
        evidence: z.array(text(500)).min(1).max(10),
        suggestedReview: text(1000),
      }),
    )
    .max(100),
});

export const nextActionsSchema = z.strictObject({
  actions: z
    .array(
      z.strictObject({
        actionType: z.enum(["review", "practice", "learn_new", "rest"]),
        target: z.strictObject({ type: z.enum(["knowledge_point", "material", "none"]), id: id.nullable() }),
        title: text(300),
        reason: text(1000),
        priority: z.number().int().min(1).max(5),
        estimatedMinutes: z.number().int().min(1).max(600),
      }),
    )
    .min(1)
    .max(20),
});

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

export const flashcardsSchema = z.strictObject({
  flashcards: z
    .array(
      z.strictObject({
        front: text(500),
        back: text(2000),
        knowledgePointId: id,
        tags: z.array(text(50)).max(10),
      }),
    )
    .min(1)
    .max(50),
});

export const outputSchemas = {
  v1: {
    learning_state_analysis: learningAnalysisSchema,
    weak_point_analysis: weakPointsSchema,
    next_action_planning: nextActionsSchema,
    quiz_generation: quizSchema,
    flashcard_generation: flashcardsSchema,
  },
} as const;

export type OutputSchemaVersion = keyof typeof outputSchemas;
export type JobOutput<T extends JobTypeName> = z.infer<(typeof outputSchemas)["v1"][T]>;
export type LearningAnalysis = z.infer<typeof learningAnalysisSchema>;
export type WeakPoints = z.infer<typeof weakPointsSchema>;
export type NextActions = z.infer<typeof nextActionsSchema>;
export type Quiz = z.infer<typeof quizSchema>;
export type Flashcards = z.infer<typeof flashcardsSchema>;
