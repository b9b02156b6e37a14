import { z } from "zod";
import { JOB_TYPES, jobTypeSchema, outputSchemaVersionSchema } from "../job-types/catalogue";
import { snapshotContentSchema } from "../job-types/fields";
import { REJECTION_LIMITS } from "../jobs/rejection-limits";
import { MAX_RESULTS_PER_REQUEST, TARGET_TYPES } from "../jobs/constants";
import { DEFAULT_LOCALE, LOCALES } from "../i18n/locales";
import { refuseUnstorable } from "../security/storable-text";
import { USAGE_LIMITS, usageSchema } from "./usage";

/**
 * The Runtime HTTP protocol (docs/contract.md#the-runtime-protocol) as zod schemas: the route handlers parse requests with
 * them, the reference Runtime validates responses with them, and the OpenAPI document is
 * generated from them. Unknown request fields are ignored, so Runtimes can be newer than the API.
 * Every request refuses text PostgreSQL cannot store (NUL, lone surrogates) anywhere in its body,
 * `output` included, as a 400 naming the field, before anything is read or written.
 */
export const runtimeInstanceId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:@-]+$/, "letters, digits and . _ : @ - only");
const attemptNo = z.number().int().min(1).max(1_000_000);
const isoDate = z.union([z.iso.datetime(), z.date()]);

/** docs/contract.md#the-runtime-protocol: a long poll waits at most 20 s, well inside any proxy's idle timeout. */
export const MAX_WAIT_MS = 20_000;

export const pollRequest = z
  .object({
    runtimeInstanceId,
    capabilities: z.array(jobTypeSchema).min(1).max(JOB_TYPES.length),
    limit: z.number().int().min(1).max(50).default(10),
    claim: z.boolean().default(false),
    /** Long poll: with nothing to return, hold the answer up to this long for a matching job. */
    waitMs: z.number().int().min(0).max(MAX_WAIT_MS).default(0),
    runtimeVersion: z.string().max(64).optional(),
  })
  .superRefine(refuseUnstorable);

export const lockRequest = z.object({ runtimeInstanceId }).superRefine(refuseUnstorable);

export const heartbeatRequest = z
  .object({
    runtimeInstanceId,
    attemptNo,
    stage: z.string().min(1).max(64).nullish(),
    progress: z.number().int().min(0).max(100).nullish(),
    message: z.string().max(500).nullish(),
  })
  .superRefine(refuseUnstorable);

/** The API's limits on a result, published in the OpenAPI document and checked by Runtimes before they submit. */
export const RESULT_LIMITS = {
  /** Default of RUNTIME_MAX_BODY_BYTES: a larger request body is refused with 413. */
  maxBodyBytes: 256 * 1024,
  modelProvider: USAGE_LIMITS.provider,
  modelName: USAGE_LIMITS.model,
  promptVersion: 64,
} as const;

export { usageSchema, type Usage } from "./usage";

/** A result's fields, as POST /{jobId}/result takes them and as each item of POST /results does. */
const resultFields = {
  attemptNo,
  output: z.record(z.string(), z.unknown()),
  /** The version the output is written in; left out: the lease's (protocol 1: v1). */
  outputSchemaVersion: outputSchemaVersionSchema
    .optional()
    .describe("The version `output` is written in; left out: the version the lease named (protocol 1: v1)"),
  promptVersion: z.string().max(RESULT_LIMITS.promptVersion).nullish(),
  modelProvider: z.string().max(RESULT_LIMITS.modelProvider).nullish(),
  modelName: z.string().max(RESULT_LIMITS.modelName).nullish(),
  usage: usageSchema.nullish(),
  latencyMs: z.number().int().min(0).max(86_400_000).nullish(),
  degraded: z.boolean().optional(),
};

export const resultRequest = z.object({ runtimeInstanceId, ...resultFields }).superRefine(refuseUnstorable);

/** A job id as the routes take it in their path. */
export const jobId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a job id: letters, digits, _ and - (1 to 64)");

/** Several results in one request (at most as many as a claim returns), each for a different job. */
export const resultsRequest = z
  .object({
    runtimeInstanceId,
    results: z
      .array(
        z.object({
          jobId,
          /**
           * The job's type: the item's output is that type's. An item naming another type is refused
           * (422 INVALID_SCHEMA, rule job_type_mismatch) and the job keeps its lease; an item without
           * it (protocol 1) is read as its job's type.
           */
          jobType: jobTypeSchema.optional(),
          ...resultFields,
        }),
      )
      .min(1)
      .max(MAX_RESULTS_PER_REQUEST),
  })
  .superRefine(refuseUnstorable)
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.results.forEach((r, i) => {
      if (seen.has(r.jobId))
        ctx.addIssue({
          code: "custom",
          path: ["results", i, "jobId"],
          message: "this job already has a result in this request",
        });
      seen.add(r.jobId);
    });
  });

/** Bounds on a rejection a Runtime reports with fail (the domain's, published in the OpenAPI document's x-runtime-limits). */
export { REJECTION_LIMITS };

/** One broken rule, as the 422 details carry it. The rule name has the explorer filter's shape, so the filter finds it. */
export const violationSchema = z.object({
  path: z.string().max(REJECTION_LIMITS.path),
  rule: z
    .string()
    .min(1)
    .max(REJECTION_LIMITS.rule)
    .regex(/^[a-z_]+(\.[a-z_]+)?$/, "a rule name: lower-case words with _, one optional dot"),
  message: z.string().max(REJECTION_LIMITS.message),
});

/** How deep a JSON value nests, counted without recursion (a hostile value must not cost the stack). */
export function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (!v || typeof v !== "object") continue;
    max = Math.max(max, d + 1);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

export const failRequest = z
  .object({
    runtimeInstanceId,
    attemptNo,
    errorCode: z.string().min(1).max(64),
    errorMessage: z.string().max(2000).nullish(),
    usage: usageSchema.nullish(),
    /**
     * The provider's Retry-After (429, 503) in ms: the earliest the job may run again. The API
     * takes the later of it and its own backoff, never beyond the backoff cap.
     */
    retryAfterMs: z.number().int().min(0).max(86_400_000).optional(),
    /**
     * The last output the Runtime's own quality loop rejected (any JSON value; the model's text when
     * it was not JSON), kept at this attempt like an output the API refuses with 422.
     */
    rejectedOutput: z
      .unknown()
      .refine(
        (v) => jsonDepth(v) <= REJECTION_LIMITS.outputDepth,
        `nested more than ${REJECTION_LIMITS.outputDepth} levels`,
      )
      .optional()
      .describe(
        "The last output the Runtime's quality loop rejected (any JSON value), kept at this attempt; at most 64 levels deep",
      ),
    /**
     * Set when the Runtime cut a large output itself: rejectedOutput is then the start of its JSON
     * text (a string) and rejectedOutputBytes the whole text's size.
     */
    rejectedOutputTruncated: z
      .boolean()
      .optional()
      .describe(
        "rejectedOutput is the output's JSON text as a string, cut by the Runtime when rejectedOutputBytes is larger",
      ),
    rejectedOutputBytes: z
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .optional()
      .describe("The whole JSON text's size when the Runtime cut it"),
    /** What rejectedOutput broke: [{path, rule, message}], as the 422 details carry it. */
    violations: z
      .array(violationSchema)
      .max(REJECTION_LIMITS.violations)
      .optional()
      .describe("What rejectedOutput broke, as a 422's details: [{path, rule, message}]"),
  })
  .superRefine(refuseUnstorable)
  .superRefine((body, ctx) => {
    if (body.rejectedOutput === undefined && (body.violations?.length || body.rejectedOutputTruncated))
      ctx.addIssue({
        code: "custom",
        path: ["rejectedOutput"],
        message: "violations describe a rejectedOutput: send it too",
      });
    if (body.rejectedOutputTruncated && typeof body.rejectedOutput !== "string")
      ctx.addIssue({
        code: "custom",
        path: ["rejectedOutput"],
        message: "a truncated rejectedOutput is the start of its JSON text (a string)",
      });
  });

export const jobSummary = z.object({
  id: z.string(),
  jobType: jobTypeSchema,
  targetType: z.enum(TARGET_TYPES),
  targetId: z.string(),
  priority: z.number().int(),
  attemptNo: z.number().int(),
  createdAt: isoDate,
});

export const leasedJob = z.object({
  id: z.string(),
  jobType: jobTypeSchema,
  targetType: z.enum(TARGET_TYPES),
  targetId: z.string(),
  priority: z.number().int(),
  params: z.record(z.string(), z.unknown()),
  attemptNo: z.number().int(),
  retryCount: z.number().int(),
  maxRetryCount: z.number().int(),
  timeoutSeconds: z.number().int(),
  /** The output version the job expects from this Runtime: its protocol's (1: v1, 2: v2). */
  outputSchemaVersion: outputSchemaVersionSchema.describe(
    "The output version this Runtime submits: v2 under protocol 2, v1 under protocol 1 (docs/contract.md#versions-and-the-compatibility-promise)",
  ),
  promptVersion: z.string().nullable(),
  /**
   * The language every text field of the output is written in (JSON keys and enum values stay
   * English). Missing (an older API): English. A tag the Runtime does not know: it writes English.
   */
  locale: z
    .string()
    .max(35)
    .default(DEFAULT_LOCALE)
    .describe(
      `The learner's language: write every text field of the output in it (keys and enum values stay English). Today one of ${LOCALES.map((l) => `\`${l}\``).join(", ")}; a Runtime that does not know a tag writes English.`,
    ),
  createdAt: isoDate,
  /**
   * OpenTelemetry (docs/contract.md#deployment-shapes): the W3C trace context of this attempt in the job's trace. A Runtime that
   * traces starts its spans of the job as children of it. Absent when the job has no trace.
   */
  traceparent: z
    .string()
    .max(512)
    .optional()
    .describe(
      "The W3C `traceparent` of this attempt in the job's OpenTelemetry trace (version-traceId-parentId-flags): start the Runtime's spans of the job as its children. Absent when the job has no trace.",
    ),
  snapshot: z
    .object({ id: z.string(), contentHash: z.string(), capturedAt: isoDate, content: snapshotContentSchema })
    .nullable(),
  model: z.object({
    provider: z.string(),
    name: z.string(),
    apiKeyMode: z.enum(["platform_key", "user_deepseek_key"]),
    /** Present only for user_deepseek_key jobs, only to the lease holder. */
    apiKey: z.string().optional(),
  }),
});

export const lockResponse = z.object({ job: leasedJob, lockUntil: isoDate });
/** A poll item says what it is: a job taken for the caller (claim: true), or one to lock by id. */
const claimedPollItem = lockResponse.extend({ kind: z.literal("claimed") });
const unclaimedPollItem = jobSummary.extend({ kind: z.literal("unclaimed") });
export const pollResponse = z.object({
  jobs: z.array(z.discriminatedUnion("kind", [claimedPollItem, unclaimedPollItem])),
  pollIntervalMs: z.number().int(),
});
export const heartbeatResponse = z.object({ lockUntil: isoDate, cancelRequested: z.boolean() });
export const resultResponse = z.object({
  status: z.literal("succeeded"),
  resultId: z.string(),
  idempotent: z.boolean(),
  /** Stored degraded: the output broke an evidence rule (it is kept and shown marked), or the Runtime said so. */
  degraded: z
    .boolean()
    .describe(
      "The result was stored degraded: it broke an evidence rule (docs/evidence-rules.md) or the Runtime sent degraded: true. It is kept and shown marked.",
    ),
});
export const failResponse = z.object({
  status: z.enum(["pending", "failed", "cancelled"]),
  retryCount: z.number().int(),
  runAfter: isoDate.nullable(),
});
export const errorResponse = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});
/** Per result, in the request's order: the status and body its own POST /{jobId}/result would have answered. */
export const resultsResponse = z.object({
  results: z.array(
    z.object({
      jobId: z.string(),
      httpStatus: z.number().int(),
      body: z.union([resultResponse, errorResponse]),
    }),
  ),
});

export type LeasedJob = z.infer<typeof leasedJob>;
