import { z } from "zod";
import { API_KEY_MODES, JOB_STATUSES, JOB_TYPES, TARGET_TYPES } from "../jobs/constants";
import { LOCALES } from "../i18n/locales";
import { jobTypeSchema, snapshotContentSchema } from "../jobs/schemas";

/**
 * Output schemas are the DTOs: tRPC parses every answer with them, and z.object drops any key
 * not listed, so a new column (or a secret one) never reaches a browser by accident.
 * Dates leave as ISO strings, which is what JSON carries anyway, and the client types say so.
 */
export const isoDate = z.date().transform((d) => d.toISOString());
const id = z.string().min(1).max(64);

export const jobStatusSchema = z.enum(JOB_STATUSES);
export const apiKeyModeSchema = z.enum(API_KEY_MODES);
export const roleSchema = z.enum(["learner", "admin"]);

export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  mustChangePassword: z.boolean().optional(),
  locale: z.enum(LOCALES).optional(),
});

/** A learner's view of one of their jobs. */
export const learnerJobSchema = z.object({
  id: z.string(),
  jobType: jobTypeSchema,
  targetType: z.enum(TARGET_TYPES),
  targetId: z.string(),
  snapshotId: z.string().nullable(),
  status: jobStatusSchema,
  priority: z.number().int(),
  idempotencyKey: z.string().nullable(),
  apiKeyMode: apiKeyModeSchema,
  modelProvider: z.string(),
  modelName: z.string(),
  params: z.record(z.string(), z.unknown()),
  /** The language the job's text is produced in ("en", "zh-CN"). */
  locale: z.string(),
  attemptNo: z.number().int(),
  retryCount: z.number().int(),
  maxRetryCount: z.number().int(),
  retriedFromJobId: z.string().nullable(),
  runAfter: isoDate,
  cancelRequested: z.boolean(),
  stage: z.string().nullable(),
  progress: z.number().int(),
  progressMessage: z.string().nullable(),
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  resultId: z.string().nullable(),
});

/** The console's view adds who owns the job and who holds its lease. */
export const adminJobSchema = learnerJobSchema.extend({
  userId: z.string(),
  lockedBy: z.string().nullable(),
  lockedAt: isoDate.nullable(),
  lockUntil: isoDate.nullable(),
  timeoutSeconds: z.number().int(),
  promptVersion: z.string().nullable(),
  outputSchemaVersion: z.string().nullable(),
});

export const resultSchema = z.object({
  id: z.string(),
  attemptNo: z.number().int(),
  output: z.record(z.string(), z.unknown()),
  outputSchemaVersion: z.string(),
  promptVersion: z.string().nullable(),
  modelProvider: z.string().nullable(),
  modelName: z.string().nullable(),
  /** docs/contract.md#the-runtime-protocol usage as the Runtime reported it: token counts and durations, provider and model names. */
  usage: z.record(z.string(), z.union([z.number(), z.string(), z.null()])).nullable(),
  latencyMs: z.number().int().nullable(),
  degraded: z.boolean(),
  createdAt: isoDate,
});

const eventBase = z.object({
  id: z.string(),
  fromStatus: jobStatusSchema.nullable(),
  toStatus: jobStatusSchema,
  actorType: z.enum(["learner", "admin", "runtime", "system", "workflow", "platform"]),
  attemptNo: z.number().int(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  createdAt: isoDate,
});
/** Learners see what happened, not which admin or Runtime instance did it. */
export const learnerEventSchema = eventBase;
export const adminEventSchema = eventBase.extend({ actorId: z.string().nullable() });

export const pageInput = {
  page: z.number().int().min(1).max(10_000).default(1),
  pageSize: z.number().int().min(1).max(100).default(20),
};
export const jobFilterInput = {
  status: z.array(jobStatusSchema).max(JOB_STATUSES.length).optional(),
  jobType: z.array(jobTypeSchema).max(JOB_TYPES.length).optional(),
};

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
  });
}

export const jobIdInput = z.object({ jobId: id });

export const snapshotSchema = z.object({
  id: z.string(),
  targetType: z.enum(TARGET_TYPES),
  targetId: z.string(),
  contentHash: z.string(),
  content: snapshotContentSchema,
  createdAt: isoDate,
});

export const maskedCredentialSchema = z.object({
  provider: z.string(),
  last4: z.string().length(4),
  createdAt: isoDate,
});

/** One job limit of a learner: this window's use, what is left and when the window resets. */
export const quotaUsageSchema = z.object({
  metric: z.string(),
  jobType: jobTypeSchema.nullable(),
  period: z.enum(["hour", "day"]),
  allowed: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
  resetsAt: isoDate,
  overridden: z.boolean(),
});
