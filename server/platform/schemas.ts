import { z } from "zod";
import { JOB_ERROR_CODES, JOB_STATUSES, TARGET_TYPES } from "../jobs/constants";
import { outputSchemaVersionSchema } from "../job-types/catalogue";
import { learnerExportSchema } from "../learners/export-schema";
import { jobTypeSchema } from "../jobs/schemas";
import { refuseUnstorable } from "../security/storable-text";
import { LIMITS, plainLine } from "../security/learner-text";
import { RATINGS } from "../review/fsrs";
import { ERASURE_COUNT_KINDS, type ErasureCountKind } from "../learners/erasure-counts";

/**
 * The platform API's request and answer schemas (docs/contract.md#learners-and-their-data): the routes parse with them and the
 * OpenAPI document (server/platform/openapi.ts) is generated from them. Request objects are
 * strict: an unknown field (`__proto__`, `constructor`, a typo) is a 400, never data. Every request
 * refuses text PostgreSQL cannot store (NUL, lone surrogates) anywhere in its body.
 */

/** The platform's own ids, in paths and bodies: plain ASCII, so they travel in a URL unescaped. */
export const EXTERNAL_ID = /^[A-Za-z0-9._~:@-]{1,128}$/;
export const externalId = z
  .string()
  .regex(EXTERNAL_ID, "1 to 128 of the characters A-Z a-z 0-9 . _ ~ : @ -")
  .meta({ example: "learner-42" });

export const LOCALES = ["zh-CN", "en"] as const;
/** A material's text: at most 200 KB of UTF-8 (docs/contract.md#learners-and-their-data). */
export const MATERIAL_TEXT_BYTES = 200 * 1024;
/** Activity items per call (docs/contract.md#learners-and-their-data). */
export const MAX_ACTIVITY_ITEMS = 1000;
export const MAX_KNOWLEDGE_POINTS = 500;

const line = (max: number) =>
  z
    .string()
    .transform(plainLine)
    .pipe(z.string().min(1, "must not be empty").max(max, `at most ${max} characters`))
    .meta({
      minLength: 1,
      maxLength: max,
      description: `One line: whitespace runs become one space and the ends are trimmed; then 1 to ${max} characters (400 INVALID_REQUEST).`,
    });
/** Dates as ISO 8601 with an offset; the years a learning record can plausibly have. */
const instant = z.iso
  .datetime({ offset: true })
  .refine((s) => {
    const y = new Date(s).getUTCFullYear();
    return y >= 1970 && y <= 2100;
  }, "a date between 1970 and 2100")
  .meta({
    example: "2026-12-01T09:30:00Z",
    description: "ISO 8601 with an offset, in the years 1970 to 2100 (else 400 INVALID_REQUEST).",
  });

export const learnerBody = z
  .strictObject({
    name: line(LIMITS.displayName),
    /** Omitted on an update: the stored email stays. A learner made without one gets a placeholder that receives no mail. */
    email: z.email().max(254).optional(),
    locale: z.enum(LOCALES).nullable().optional(),
    /** The learner's consent to AI analysis, as the platform obtained it (omitted: unchanged). */
    aiConsent: z.boolean().optional(),
  })
  .superRefine(refuseUnstorable);

export const learnerAnswer = z.object({
  externalId: z.string(),
  name: z.string(),
  email: z.string(),
  locale: z.enum(LOCALES).nullable(),
  aiConsent: z.boolean(),
  created: z.boolean(),
});

const knowledgePointInput = z.strictObject({
  externalId,
  title: line(LIMITS.knowledgePointTitle),
  description: z.string().max(LIMITS.knowledgePointDescription).optional(),
});

export const materialBody = z
  .strictObject({
    title: line(LIMITS.materialTitle),
    text: z
      .string()
      .refine((s) => Buffer.byteLength(s) <= MATERIAL_TEXT_BYTES, {
        message: `at most ${MATERIAL_TEXT_BYTES} bytes of UTF-8`,
        params: { limitBytes: MATERIAL_TEXT_BYTES },
      })
      .describe(`At most ${MATERIAL_TEXT_BYTES} bytes of UTF-8 (200 KB); more is 413 PAYLOAD_TOO_LARGE.`),
    /** The full set: knowledge points of this material not named here are removed. */
    knowledgePoints: z
      .array(knowledgePointInput)
      .max(MAX_KNOWLEDGE_POINTS)
      .refine(
        (a) => new Set(a.map((k) => k.externalId)).size === a.length,
        "knowledge point externalIds must be distinct",
      )
      .describe(
        `The full set, at most ${MAX_KNOWLEDGE_POINTS}, each externalId once (a repeated one is 400 INVALID_REQUEST).`,
      ),
  })
  .superRefine(refuseUnstorable);

export const materialAnswer = z.object({
  externalId: z.string(),
  title: z.string(),
  knowledgePoints: z.array(z.object({ externalId: z.string(), title: z.string() })),
  removedKnowledgePoints: z.number().int(),
  created: z.boolean(),
});

const quizAttemptInput = z.strictObject({
  externalId,
  knowledgePointExternalId: externalId,
  correct: z.boolean(),
  answeredAt: instant,
  question: z.string().max(LIMITS.quizQuestion).optional(),
});
const studySessionInput = z.strictObject({
  externalId,
  materialExternalId: externalId.optional(),
  startedAt: instant,
  minutes: z
    .number()
    .int()
    .min(0)
    .max(24 * 60),
});

/** One rating of a spaced-repetition card the platform keeps; the card is created or updated by its id. */
const reviewInput = z.strictObject({
  externalId,
  cardExternalId: externalId,
  /** The card's text, as the learner sees it (the latest review's text wins). */
  front: z.string().min(1).max(LIMITS.quizAnswer),
  back: z.string().min(1).max(LIMITS.quizAnswer),
  kind: z.enum(["flashcard", "question"]).default("flashcard"),
  knowledgePointExternalId: externalId.optional(),
  rating: z.enum(RATINGS),
  reviewedAt: instant,
});

export const activityBody = z
  .strictObject({
    quizAttempts: z.array(quizAttemptInput).max(MAX_ACTIVITY_ITEMS).default([]),
    studySessions: z.array(studySessionInput).max(MAX_ACTIVITY_ITEMS).default([]),
    reviews: z.array(reviewInput).max(MAX_ACTIVITY_ITEMS).default([]),
  })
  .refine(
    (b) => b.quizAttempts.length + b.studySessions.length + b.reviews.length <= MAX_ACTIVITY_ITEMS,
    `at most ${MAX_ACTIVITY_ITEMS} items a call, quiz attempts, study sessions and reviews together`,
  )
  .superRefine(refuseUnstorable)
  .describe(
    `At most ${MAX_ACTIVITY_ITEMS} items a call, quiz attempts, study sessions and reviews together (400 INVALID_REQUEST above). An item repeated within the call or already stored is counted, not stored twice.`,
  );

const counted = z.object({ received: z.number().int(), new: z.number().int() });
export const activityAnswer = z.object({
  quizAttempts: counted,
  studySessions: counted,
  reviews: counted,
  /** Items stored by this call; the rest were repeats of items already stored (or repeated within the call). */
  new: z.number().int(),
  repeated: z.number().int(),
});

/** A job's target, by kind: the learner themself names nothing; a material or a knowledge point is named by the platform's id. */
export const targetInput = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("user") }).meta({ title: "UserTarget" }),
  z.strictObject({ type: z.literal("material"), externalId }).meta({ title: "MaterialTarget" }),
  z.strictObject({ type: z.literal("knowledge_point"), externalId }).meta({ title: "KnowledgePointTarget" }),
]);
export type TargetInput = z.infer<typeof targetInput>;

export const jobBody = z
  .strictObject({
    jobType: jobTypeSchema,
    /** type "user": the learner themself (no externalId); material, knowledge_point: the platform's id of it. */
    target: targetInput,
    /** Checked by the job type's parameter schema (400 INVALID_PARAMS). */
    params: z.record(z.string(), z.unknown()).optional(),
    /** The same key for the same learner, type and target answers the job it made, whatever else changed. */
    idempotencyKey: z.string().min(1).max(200).optional(),
    /** The language of the job's text; left out: the learner's `locale`, else English. */
    locale: z.enum(LOCALES).optional(),
  })
  .superRefine(refuseUnstorable);

export const jobAnswer = z.object({
  id: z.string(),
  jobType: jobTypeSchema,
  status: z.enum(JOB_STATUSES),
  learnerExternalId: z.string(),
  target: z.object({ type: z.enum(TARGET_TYPES), externalId: z.string().nullable() }),
  idempotencyKey: z.string().nullable(),
  /** The language the job's text is produced in. */
  locale: z.enum(LOCALES),
  stage: z.string().nullable(),
  progress: z.number().int(),
  progressMessage: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** Present once the job succeeded: the output of its job type (docs/contract.md#job-types-and-outputs, in the version `outputSchemaVersion` names). */
  output: z.unknown().nullable(),
  outputSchemaVersion: outputSchemaVersionSchema.nullable(),
  /** Present once the job succeeded: whether its result was stored degraded. */
  degraded: z
    .boolean()
    .nullable()
    .describe(
      "Once the job succeeded: true when its result was stored degraded (it broke an evidence rule, docs/evidence-rules.md, or its Runtime said so); null before.",
    ),
  /** Set once a cancel was asked for a locked or running job: its Runtime stops at its next heartbeat and the job ends cancelled. */
  cancelRequested: z.boolean(),
  error: z
    .object({ code: z.enum(JOB_ERROR_CODES), message: z.string() })
    .nullable()
    .describe(
      "The last failed attempt's error, or null when no attempt failed. A failed or cancelled job: why it ended (code CANCELLED when cancelled). A job put back to pending after a failed attempt (a retryable code such as MODEL_TIMEOUT or JOB_TIMEOUT, retries left) carries that attempt's error while it waits and runs again; it is cleared when an attempt succeeds.",
    ),
});

export const startJobAnswer = z.object({
  /** false: an existing job answered (the same idempotency key, or the same analysis already in flight). */
  created: z.boolean(),
  job: jobAnswer,
});

/** The export (server/learners/export.ts): everything stored about the learner, section by section (docs/data-rights.md). */
export const exportAnswer = learnerExportSchema;

export const erasedAnswer = z.object({
  externalId: z.string(),
  erased: z.literal(true),
  /** Names no one: it is also the id of the erasure's audit row. */
  erasureId: z.string(),
  /** Rows removed, per kind, and the jobs cancelled in flight (`cancelledInFlight`). */
  counts: z.object(
    Object.fromEntries(ERASURE_COUNT_KINDS.map((k) => [k, z.number().int().min(0)])) as Record<
      ErasureCountKind,
      z.ZodNumber
    >,
  ),
  /**
   * The jobs the erasure cancelled in flight (pending, waiting to retry or held by a Runtime):
   * the webhook never announces them (docs/data-rights.md#erasure), and GET /jobs/{id} answers
   * 404 JOB_NOT_FOUND for them, as for every job of the learner.
   */
  cancelledJobIds: z.array(z.string()),
});
