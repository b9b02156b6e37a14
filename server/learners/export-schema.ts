import { z } from "zod";
import { API_KEY_MODES, JOB_STATUSES, TARGET_TYPES } from "../jobs/constants";
import { JOB_TYPES } from "../job-types";

/**
 * The learner export (server/learners/export.ts) as JSON leaves it: what the platform API's
 * OpenAPI document publishes for GET /api/v1/learners/{externalId}/export, section by section
 * (docs/data-rights.md). Dates are ISO-8601 strings; ids are ours (the platform's own are the
 * `externalId` fields). Rows list every field they carry; job rows and their results may gain
 * columns (`additionalProperties` allowed there).
 */
const date = z.iso.datetime().meta({ format: "date-time" });
const id = z.string();
const optionalText = z.string().nullable();

const usageRow = z.object({
  id,
  jobId: id,
  attemptNo: z.number().int(),
  jobType: z.enum(JOB_TYPES),
  apiKeyMode: z.enum(API_KEY_MODES),
  provider: optionalText,
  model: optionalText,
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  durationMs: z.number().int(),
  outcome: z.string(),
  createdAt: date,
});

const jobRow = z
  .object({
    id,
    jobType: z.enum(JOB_TYPES),
    targetType: z.enum(TARGET_TYPES),
    targetId: id,
    snapshotId: id.nullable(),
    status: z.enum(JOB_STATUSES),
    priority: z.number().int(),
    idempotencyKey: optionalText,
    apiKeyMode: z.enum(API_KEY_MODES),
    locale: z.string(),
    attemptNo: z.number().int(),
    retryCount: z.number().int(),
    maxRetryCount: z.number().int(),
    retriedFromJobId: id.nullable(),
    params: z.record(z.string(), z.unknown()),
    stage: optionalText,
    progress: z.number().int(),
    errorCode: optionalText,
    errorMessage: optionalText,
    createdAt: date,
    startedAt: date.nullable(),
    finishedAt: date.nullable(),
    result: z
      .object({
        id,
        attemptNo: z.number().int(),
        output: z.unknown(),
        outputSchemaVersion: z.string(),
        usage: z.unknown(),
        degraded: z.boolean(),
        createdAt: date,
      })
      .loose()
      .nullable()
      .describe("The stored output, once the job succeeded"),
    rejections: z
      .array(
        z.object({
          id: z.string().describe("a number, as a string"),
          attemptNo: z.number().int(),
          output: z.string(),
          truncated: z.boolean(),
          outputBytes: z.number().int(),
          violations: z.unknown(),
          rules: z.array(z.string()),
          createdAt: date,
        }),
      )
      .describe("Outputs refused at an attempt (422, or the Runtime's own quality loop)"),
    events: z
      .array(
        z.object({
          id: z.string().describe("a number, as a string"),
          fromStatus: z.enum(JOB_STATUSES).nullable(),
          toStatus: z.enum(JOB_STATUSES),
          actorType: z.string(),
          attemptNo: z.number().int(),
          errorCode: optionalText,
          errorMessage: optionalText,
          createdAt: date,
        }),
      )
      .describe("The job's status history; who acted is named by kind only"),
    usage: z.array(usageRow).describe("Model usage per attempt"),
  })
  .loose();

export const learnerExportSchema = z.object({
  format: z.literal("ai-job-runtime/learner-export"),
  version: z.literal(1),
  exportedAt: date,
  account: z.object({
    id,
    email: z.string(),
    name: z.string(),
    role: z.enum(["learner", "admin"]),
    locale: optionalText,
    externalId: optionalText,
    emailVerified: z.boolean(),
    image: optionalText,
    createdAt: date,
    updatedAt: date,
    signInMethods: z.array(
      z.object({
        providerId: z.string(),
        accountId: z.string(),
        scope: optionalText,
        createdAt: date,
        updatedAt: date,
      }),
    ),
  }),
  sessions: z
    .array(
      z.object({
        createdAt: date,
        updatedAt: date,
        expiresAt: date,
        ipAddress: optionalText,
        userAgent: optionalText,
      }),
    )
    .describe("Sign-in sessions, without their tokens"),
  consent: z
    .object({
      granted: z.boolean(),
      apiKeyMode: z.enum(API_KEY_MODES),
      grantedAt: date.nullable(),
      revokedAt: date.nullable(),
      updatedAt: date,
    })
    .nullable(),
  credentials: z
    .array(
      z.object({
        id,
        provider: z.string(),
        last4: z.string(),
        createdAt: date,
        updatedAt: date,
        deletedAt: date.nullable(),
      }),
    )
    .describe("The learner's own model keys: their last four characters only"),
  materials: z.array(z.object({ id, externalId: optionalText, title: z.string(), createdAt: date, text: z.string() })),
  knowledgePoints: z.array(
    z.object({
      id,
      externalId: optionalText,
      materialId: id.nullable(),
      title: z.string(),
      description: z.string(),
      createdAt: date,
    }),
  ),
  quizAttempts: z.array(
    z.object({
      id,
      externalId: optionalText,
      knowledgePointId: id,
      question: z.string(),
      correct: z.boolean(),
      answeredAt: date,
      sourceJobId: id.nullable(),
    }),
  ),
  studySessions: z.array(
    z.object({
      id,
      externalId: optionalText,
      materialId: id.nullable(),
      startedAt: date,
      minutes: z.number().int(),
      sourceJobId: id.nullable(),
    }),
  ),
  flashcardMarks: z.array(z.object({ jobId: id, cardIndex: z.number().int(), createdAt: date })),
  nextActionTicks: z.array(z.object({ jobId: id, actionIndex: z.number().int(), createdAt: date })),
  reviewCards: z.array(
    z.object({
      id,
      kind: z.enum(["flashcard", "question"]),
      knowledgePointId: id.nullable(),
      sourceJobId: id.nullable(),
      itemIndex: z.number().int().nullable(),
      externalId: optionalText,
      front: z.string(),
      back: z.string(),
      due: date,
      stability: z.number(),
      difficulty: z.number(),
      scheduledDays: z.number().int(),
      learningSteps: z.number().int(),
      reps: z.number().int(),
      lapses: z.number().int(),
      state: z.number().int(),
      lastReview: date.nullable(),
      createdAt: date,
      logs: z.array(
        z.object({
          id,
          rating: z.number().int(),
          state: z.number().int(),
          reviewedAt: date,
          stability: z.number(),
          difficulty: z.number(),
          scheduledDays: z.number().int(),
          due: date,
          externalId: optionalText,
          createdAt: date,
        }),
      ),
    }),
  ),
  snapshots: z.array(
    z.object({
      id,
      targetType: z.enum(TARGET_TYPES),
      targetId: id,
      contentHash: z.string(),
      content: z.record(z.string(), z.unknown()),
      createdAt: date,
    }),
  ),
  jobs: z.array(jobRow),
  usageOfPrunedJobs: z.array(usageRow).describe("Usage of jobs that retention has already removed"),
  quota: z.object({
    usage: z.array(
      z.object({ metric: z.string(), period: z.string(), windowStart: date, used: z.number().int(), updatedAt: date }),
    ),
    overrides: z.array(
      z.object({ metric: z.string(), period: z.string(), allowed: z.number().int(), updatedAt: date }),
    ),
  }),
});
