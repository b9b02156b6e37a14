import { z } from "zod";
import type { ErrorCode } from "./errors";
import { FAILURE_CODES, JOB_STATUSES, TARGET_TYPES } from "./jobs/constants";
import { PROTOCOL_MAJORS } from "./runtime-api/protocol";
import { JOB_TYPES } from "./job-types/catalogue";
import { violationSchema } from "./runtime-api/contract";

/**
 * The error answers of both OpenAPI documents (Runtime protocol and platform API), typed per code:
 * `{"error": {code, message, details}}` where `code` is one constant and `details` has that code's
 * shape, or is never present for a code that carries none. A status's answer is one of its codes'
 * shapes, told apart by `code`. What each code's details hold is what the services throw
 * (AppError's third argument); the live-answer tests check the documents against them.
 */
type JsonSchema = Record<string, unknown>;

const str = { type: "string" };
const int = { type: "integer" };
const dateTime = { type: "string", format: "date-time" };
const jobStatus = { type: "string", enum: [...JOB_STATUSES] };
const jobType = { type: "string", enum: [...JOB_TYPES] };
const targetType = { type: "string", enum: [...TARGET_TYPES] };
const object = (properties: Record<string, unknown>, required: string[], description?: string): JsonSchema => ({
  type: "object",
  ...(description ? { description } : {}),
  required,
  properties,
});

/** [{path, message}]: the first 20 schema issues (or text PostgreSQL cannot store), `path` dotted. */
const issues: JsonSchema = {
  type: "array",
  description: 'What is wrong, per field: `path` is the field\'s dotted path ("target.externalId", "(body)").',
  items: object({ path: str, message: str }, ["path", "message"]),
};
const violation = z.toJSONSchema(violationSchema, { target: "draft-2020-12", io: "output" }) as JsonSchema;
delete violation.$schema;

type Details = { schema: JsonSchema; always: boolean };

/** Each code's `details`; a code not listed never carries any. */
const DETAILS: Partial<Record<ErrorCode, Details>> = {
  INVALID_REQUEST: {
    always: false,
    schema: {
      description:
        "The fields at fault as [{path, message}]; a job type started on a target type it does not run on: {jobType, targetType, allowedTargetTypes}.",
      anyOf: [
        issues,
        object({ jobType: jobType, targetType: targetType, allowedTargetTypes: { type: "array", items: targetType } }, [
          "jobType",
          "targetType",
          "allowedTargetTypes",
        ]),
      ],
    },
  },
  INVALID_PARAMS: { always: true, schema: issues },
  UNKNOWN_REFERENCE: { always: true, schema: issues },
  CARD_LOG_FULL: { always: true, schema: issues },
  UNKNOWN_ERROR_CODE: {
    always: true,
    schema: object({ allowed: { type: "array", items: { type: "string", enum: Object.keys(FAILURE_CODES) } } }, [
      "allowed",
    ]),
  },
  PAYLOAD_TOO_LARGE: {
    always: true,
    schema: object(
      { limitBytes: int, path: str },
      ["limitBytes"],
      "The limit that was passed, in bytes of UTF-8: the whole body's, or (with `path`) one field's, such as a material's text.",
    ),
  },
  LOCK_LOST: {
    always: true,
    schema: {
      description:
        "The job's state now ({status, attemptNo}); {tries} when the row changed under every attempt to store a result.",
      anyOf: [
        object({ status: jobStatus, attemptNo: int }, ["status", "attemptNo"]),
        object({ tries: int }, ["tries"]),
      ],
    },
  },
  JOB_NOT_LOCKABLE: {
    always: true,
    schema: object(
      {
        status: jobStatus,
        runAfter: dateTime,
        reason: {
          type: "string",
          enum: ["key_scope"],
          description: "Why the job cannot be locked by this key, when it is not the job's state: its scopes.",
        },
      },
      ["status"],
      "The job's state: {status} (finished or being cancelled), {status, runAfter} (waiting to retry). With `reason: \"key_scope\"`: the Runtime key's scopes forbid this job (its type is not among the key's job types, or it runs on a learner's own model key and the key may not receive learners' keys). Retrying with the same key never succeeds: skip the job (poll and claim never hand such a job to this key).",
    ),
  },
  RESULT_ALREADY_EXISTS: { always: true, schema: object({ resultId: str }, ["resultId"]) },
  INVALID_SCHEMA: {
    always: true,
    schema: {
      type: "array",
      description:
        "Every broken rule of the output: schema issues as `schema.<zod code>`, quality rules by name (`x-quality-rules`).",
      items: violation,
    },
  },
  JOB_NOT_CANCELLABLE: {
    always: false,
    schema: object(
      { status: jobStatus },
      ["status"],
      "The job's status: it has already finished (succeeded or failed). Absent when the job changed under every try to cancel it (a race with its Runtime's own writes): send the cancel again.",
    ),
  },
  UNSUPPORTED_PROTOCOL_VERSION: {
    always: true,
    schema: object(
      { supported: { type: "array", items: { type: "string", enum: Object.keys(PROTOCOL_MAJORS) } } },
      ["supported"],
      "The protocol majors this app serves.",
    ),
  },
  RATE_LIMITED: {
    always: true,
    schema: object({ retryAfterSeconds: { type: "integer", minimum: 1 } }, ["retryAfterSeconds"]),
  },
  QUOTA_EXCEEDED: {
    always: true,
    schema: object(
      {
        metric: { type: "string", description: '"jobs", "jobs:<jobType>" or "tokens" (the daily token budget)' },
        period: { type: "string", enum: ["hour", "day"] },
        allowed: int,
        used: int,
        resetsAt: dateTime,
      },
      ["metric", "period", "allowed", "used", "resetsAt"],
      "Which of the learner's limits is used up, and when its window resets.",
    ),
  },
  UNAVAILABLE: {
    always: true,
    schema: object({ retryAfterSeconds: { type: "integer", minimum: 1 } }, ["retryAfterSeconds"]),
  },
  OUTCOME_UNKNOWN: {
    always: true,
    schema: object(
      { retryAfterSeconds: { type: "integer", minimum: 1 } },
      ["retryAfterSeconds"],
      "The write's commit was not confirmed in time: it may have happened. Repeat the same call (the same idempotency key, or the same result), which finds it or makes it once.",
    ),
  },
};

/** The component name of one code's error object: LOCK_LOST → LockLostError. */
export const errorSchemaName = (code: string) =>
  `${code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase())}Error`;

/** One code's error object: `code` is that constant, `details` its shape (or absent). */
export function errorObjectSchema(code: ErrorCode): JsonSchema {
  const details = DETAILS[code];
  return {
    type: "object",
    required: ["code", "message", ...(details?.always ? ["details"] : [])],
    properties: {
      code: { type: "string", const: code },
      message: { type: "string" },
      // The schema `false`: never present (a generated client types it `never`).
      details: details ? details.schema : false,
    },
  };
}

const ref = (code: string) => ({ $ref: `#/components/schemas/${errorSchemaName(code)}` });

/** An error answer with one of these codes: {"error": …} told apart by `code`. */
export function errorBodySchema(codes: readonly string[]): JsonSchema {
  const unique = [...new Set(codes)];
  const error =
    unique.length === 1
      ? ref(unique[0]!)
      : {
          oneOf: unique.map(ref),
          discriminator: {
            propertyName: "code",
            mapping: Object.fromEntries(unique.map((c) => [c, ref(c).$ref])),
          },
        };
  return { type: "object", required: ["error"], properties: { error } };
}

/** The component schemas of these codes' error objects, and ErrorResponse: any of them. */
export function errorComponents(codes: readonly string[]): Record<string, JsonSchema> {
  const unique = [...new Set(codes)].sort();
  return {
    ...Object.fromEntries(unique.map((c) => [errorSchemaName(c), errorObjectSchema(c as ErrorCode)])),
    ErrorResponse: {
      ...errorBodySchema(unique),
      description: 'Every error answer: {"error": {code, message, details}}, `details` typed by `code`.',
    },
  };
}
