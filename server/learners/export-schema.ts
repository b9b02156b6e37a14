import { z } from "zod";
import { API_KEY_MODES, JOB_ERROR_CODES, JOB_STATUSES, TARGET_TYPES } from "../jobs/constants";
import { outputSchemaVersionSchema } from "../job-types/catalogue";
import { JOB_TYPES } from "../job-types/catalogue";
import { LOCALES } from "../i18n/locales";
import { RATINGS } from "../review/fsrs";
import { ActorType } from "../generated/prisma/enums";

/**
 * The learner export (server/learners/export.ts) as JSON leaves it: what the platform API's
 * OpenAPI document publishes for GET /api/v1/learners/{externalId}/export, section by section
 * (docs/data-rights.md). Dates are ISO-8601 strings; ids are ours (the platform's own are the
 * `externalId` fields). Every object lists exactly the fields it carries (a column added to a
 * table the export reads is added here too, or the export leaves it out: tests/platform/openapi.test.ts
 * checks a live export against the document, additional properties refused). The platform API's
 * document types each job's `result.output` by its `jobType` (server/platform/openapi.ts).
 */
const date = z.iso.datetime().meta({ format: "date-time" });
const id = z.string();
const optionalText = z.string().nullable();
/** A job's or an event's error: a code a Runtime reports, or one the app writes (LEASE_REVOKED, JOB_TIMEOUT). */
const failureCode = z.enum(JOB_ERROR_CODES).nullable();

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
  /** Prompt tokens the provider served from its cache, and the rest (docs/costs.md). */
  cacheHitTokens: z.number().int(),
  cacheMissTokens: z.number().int(),
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
    modelProvider: z.string(),
    modelName: z.string(),
    promptVersion: optionalText,
    outputSchemaVersion: optionalText,
    locale: z.enum(LOCALES),
    attemptNo: z.number().int(),
    retryCount: z.number().int(),
    maxRetryCount: z.number().int(),
    retriedFromJobId: id.nullable(),
    timeoutSeconds: z.number().int(),
    params: z.record(z.string(), z.unknown()),
    runAfter: date,
    cancelRequested: z.boolean(),
    cancelRequestedAt: date.nullable(),
    stage: optionalText,
    progress: z.number().int(),
    progressMessage: optionalText,
    errorCode: failureCode,
    errorMessage: optionalText,
    createdAt: date,
    updatedAt: date,
    startedAt: date.nullable(),
    finishedAt: date.nullable(),
    result: z
      .object({
        id,
        attemptNo: z.number().int(),
        output: z.unknown(),
        outputSchemaVersion: outputSchemaVersionSchema,
        promptVersion: optionalText,
        modelProvider: optionalText,
        modelName: optionalText,
        usage: z
          .unknown()
          .describe(
            "Null for results stored since the job's `usage` list became the attempt's one record of its usage",
          ),
        latencyMs: z.number().int().nullable(),
        degraded: z.boolean(),
        createdAt: date,
      })
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
          actorType: z.enum(ActorType),
          attemptNo: z.number().int(),
          errorCode: failureCode,
          errorMessage: optionalText,
          createdAt: date,
        }),
      )
      .describe("The job's status history; who acted is named by kind only"),
    usage: z.array(usageRow).describe("Model usage per attempt"),
  })
  .describe("A job, its result typed by its `jobType` in the platform API's document");

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
    timeZone: optionalText.describe("The learner's IANA time zone (their day for Review's limits and the digest)"),
    reviewNewPerDay: z.number().int().describe("Review's daily limit of new cards"),
    reviewMaxPerDay: z.number().int().describe("Review's daily limit of reviews"),
    digestOptIn: z.boolean().describe("Opted in to the daily review digest by email"),
    digestHour: z.number().int().describe("The digest's local hour"),
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
      /** `correct` is her own mark of an answer in her own words. */
      selfMarked: z.boolean(),
      answeredAt: date,
      sourceJobId: id.nullable(),
    }),
  ),
  /** Answers in her own words still waiting for her own mark (counted nowhere until marked). */
  pendingAnswers: z.array(
    z.object({
      id,
      knowledgePointId: id,
      sourceJobId: id,
      itemIndex: z.number().int(),
      question: z.string(),
      response: z.string(),
      answeredAt: date,
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
      suspended: z.boolean(),
      buriedUntil: date.nullable(),
      /** The card's identity apart from its text (job type, knowledge point, generated front), hashed. */
      sourceKey: z.string().nullable(),
      /** When the learner last edited its text. */
      editedAt: date.nullable(),
      createdAt: date,
      logs: z.array(
        z.object({
          id,
          rating: z.enum(RATINGS).describe("The learner's answer: again, hard, good or easy"),
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
  /** Generated cards the learner deleted: no later deck brings them back. */
  deletedCards: z.array(z.object({ sourceKey: z.string(), deletedAt: date })),
  reviewDecks: z.array(
    z.object({
      jobId: id,
      decision: z.enum(["added", "dismissed"]),
      added: z.number().int(),
      updated: z.number().int(),
      skipped: z.number().int(),
      decidedAt: date,
    }),
  ),
  digestSends: z.array(
    z.object({
      day: z.string(),
      status: z.string(),
      attempts: z.number().int(),
      lastError: optionalText,
      sentAt: date.nullable(),
      updatedAt: date,
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
