import { z } from "zod";
import { JOB_ERROR_CODES, TARGET_TYPES, TERMINAL_STATUSES } from "../jobs/constants";
import { JOB_TYPES, outputSchemaVersionSchema } from "../job-types/catalogue";

/**
 * The body of the `ai.job.finished` webhook (server/notifications/webhook.ts) as it is sent: what
 * the platform API's OpenAPI document publishes in its `webhooks` section. Ids are ours; the
 * learner's own id at the platform is `learnerExternalId` (null for a learner the platform did not
 * make or link). Read the job's output with GET /api/v1/jobs/{id}.
 */
export const jobFinishedWebhook = z.strictObject({
  type: z.literal("ai.job.finished"),
  job: z.strictObject({
    id: z.string(),
    userId: z.string(),
    learnerExternalId: z.string().nullable(),
    jobType: z.enum(JOB_TYPES),
    targetType: z.enum(TARGET_TYPES),
    targetId: z.string(),
    status: z.enum(TERMINAL_STATUSES).describe("succeeded, failed or cancelled: how the job ended"),
    attemptNo: z.number().int(),
    retryCount: z.number().int(),
    errorCode: z
      .enum(JOB_ERROR_CODES)
      .nullable()
      .describe("Why it failed or was cancelled (a failure code, CANCELLED when cancelled); null when it succeeded"),
    errorMessage: z.string().nullable(),
    finishedAt: z.iso.datetime().nullable(),
    retriedFromJobId: z.string().nullable().describe("Set on an admin's re-run: the job it re-ran"),
    result: z
      .strictObject({
        id: z.string(),
        outputSchemaVersion: outputSchemaVersionSchema,
        degraded: z.boolean().describe("Stored degraded: it broke an evidence rule, or its Runtime said so"),
      })
      .nullable()
      .describe("The stored result of a succeeded job (its output: GET /api/v1/jobs/{id})"),
  }),
});

/** The signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with JOB_WEBHOOK_SECRET. */
export const SIGNATURE_HEADER = "X-AJR-Signature";
/** The same on every delivery of one announcement (`<jobId>:<status>`): drop repeats by it. */
export const DELIVERY_HEADER = "X-AJR-Delivery";
