import { z } from "zod";
import {
  errorResponse,
  failRequest,
  failResponse,
  heartbeatRequest,
  heartbeatResponse,
  lockRequest,
  lockResponse,
  pollRequest,
  pollResponse,
  resultRequest,
  resultResponse,
  RESULT_LIMITS,
  REJECTION_LIMITS,
} from "./contract";
import { MAX_BODY_BYTES } from "./dispatch";

type JsonSchema = Record<string, unknown>;

/**
 * JSON Schema (2020-12, which OpenAPI 3.1 uses as is) from a contract schema. Requests are
 * described as a Runtime sends them (io "input": fields with defaults are optional), responses as
 * the API answers them. Dates leave the API as ISO-8601 strings.
 */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const out = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: (ctx) =>
      ctx.zodSchema._zod.def.type === "date" ? { type: "string", format: "date-time" } : undefined,
  }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** The error codes each endpoint answers with, per status (the route builder's and the services' AppError codes). */
const COMMON_ERRORS = {
  400: ["INVALID_REQUEST", "MALFORMED_JSON"],
  401: ["UNAUTHORIZED"],
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  500: ["INTERNAL"],
  503: ["UNAVAILABLE"],
} as const;

type Endpoint = {
  path: string;
  operationId: string;
  summary: string;
  request: z.ZodType;
  response: z.ZodType;
  errors: Record<number, readonly string[]>;
};

const jobErrors = { 404: ["JOB_NOT_FOUND"] } as const;

export const ENDPOINTS: Endpoint[] = [
  {
    path: "/internal/runtime/jobs/poll",
    operationId: "pollJobs",
    summary:
      "Pending, visible jobs of the given types in queue order (priority, then fairly across learners, then age). With claim: true they come back already locked to the caller; with waitMs and nothing to return, the answer waits until a job arrives or waitMs passes.",
    request: pollRequest,
    response: pollResponse,
    errors: {},
  },
  {
    path: "/internal/runtime/jobs/{jobId}/lock",
    operationId: "lockJob",
    summary:
      "Takes one pending job's lease (attemptNo + 1, lockUntil = now + lease). Returns the job with its snapshot, params and model settings.",
    request: lockRequest,
    response: lockResponse,
    errors: { ...jobErrors, 409: ["JOB_ALREADY_LOCKED", "JOB_NOT_LOCKABLE"] },
  },
  {
    path: "/internal/runtime/jobs/{jobId}/heartbeat",
    operationId: "heartbeatJob",
    summary:
      "Extends the lease and reports stage and progress; the first one moves locked → running. Answers cancelRequested.",
    request: heartbeatRequest,
    response: heartbeatResponse,
    errors: { ...jobErrors, 409: ["LOCK_LOST"] },
  },
  {
    path: "/internal/runtime/jobs/{jobId}/result",
    operationId: "submitResult",
    summary:
      "Stores the output and ends the job succeeded. The output is checked against its schema version and the quality rules; a failing output fails the job (422). The same output again answers idempotent. The whole request body may be at most `x-runtime-limits.maxBodyBytes` bytes (413 above it); field lengths are in the request schema. A Runtime checks both before submitting, and ends an attempt whose result is refused (413, 400) with fail INVALID_SCHEMA and the API's reason, so the job never waits out its lease. `usage` is the attempt's model usage (every call summed), stored per attempt.",
    request: resultRequest,
    response: resultResponse,
    errors: { ...jobErrors, 409: ["LOCK_LOST", "RESULT_ALREADY_EXISTS", "JOB_CANCELLED"], 422: ["INVALID_SCHEMA"] },
  },
  {
    path: "/internal/runtime/jobs/{jobId}/fail",
    operationId: "failJob",
    summary:
      "Reports a classified failure. Retryable codes (MODEL_TIMEOUT, MODEL_RATE_LIMIT, NETWORK_ERROR, TEMPORARY_PROVIDER_ERROR, JOB_TIMEOUT, RUNTIME_SHUTDOWN) return the job to pending with backoff while retries remain; INVALID_SNAPSHOT, INVALID_SCHEMA, INVALID_CREDENTIAL fail it; CANCELLED acknowledges a cancel request. `usage` is the attempt's model usage, stored per attempt so that a failed attempt's tokens are counted too. `retryAfterMs` is the provider's Retry-After (429, 503): runAfter is then at least that far away, never beyond the backoff cap (JOB_BACKOFF_CAP_MS). A Runtime that gives up after its own quality loop sends the last output it rejected as `rejectedOutput` with `violations` [{path, rule, message}] (the shape of a 422's details): the API keeps them at this attempt, like an output it refuses itself, cut at `x-runtime-limits.rejectedOutputBytes` and marked truncated. A Runtime may cut a larger output itself: `rejectedOutput` is then the start of its JSON text with `rejectedOutputTruncated: true` and `rejectedOutputBytes` its whole size. Nothing is kept when the job ends cancelled.",
    request: failRequest,
    response: failResponse,
    errors: {
      ...jobErrors,
      400: ["INVALID_REQUEST", "MALFORMED_JSON", "UNKNOWN_ERROR_CODE", "CANCEL_NOT_REQUESTED"],
      409: ["LOCK_LOST", "JOB_CANCELLED"],
    },
  },
];

const errorSchema = jsonSchema(errorResponse, "output");

function errorBody(codes: readonly string[]): JsonSchema {
  return {
    allOf: [
      { $ref: "#/components/schemas/ErrorResponse" },
      { type: "object", properties: { error: { type: "object", properties: { code: { enum: [...codes] } } } } },
    ],
  };
}

const pascal = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** The OpenAPI 3.1 document of the Runtime protocol, generated from the shared zod contract. */
export function buildOpenApiDocument() {
  const schemas: Record<string, JsonSchema> = { ErrorResponse: errorSchema };
  const paths: Record<string, unknown> = {};
  for (const e of ENDPOINTS) {
    const name = pascal(e.operationId);
    schemas[`${name}Request`] = jsonSchema(e.request, "input");
    schemas[`${name}Response`] = jsonSchema(e.response, "output");
    const errors: Record<number, readonly string[]> = { ...COMMON_ERRORS, ...e.errors };
    const responses: Record<string, unknown> = {
      200: {
        description: "OK",
        content: { "application/json": { schema: { $ref: `#/components/schemas/${name}Response` } } },
      },
    };
    for (const [status, codes] of Object.entries(errors)) {
      responses[status] = {
        description: `error.code is one of: ${codes.join(", ")}`,
        content: { "application/json": { schema: errorBody(codes) } },
      };
    }
    paths[e.path] = {
      post: {
        operationId: e.operationId,
        summary: e.summary,
        ...(e.path.includes("{jobId}")
          ? {
              parameters: [
                {
                  name: "jobId",
                  in: "path",
                  required: true,
                  schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
                },
              ],
            }
          : {}),
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: `#/components/schemas/${name}Request` } } },
        },
        responses,
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "AI Job Runtime — Runtime protocol",
      version: "1.0.0",
      description:
        "How an external Runtime takes and executes AI jobs (SPEC §4). Every request carries `Authorization: Bearer <runtime key>` and `runtimeInstanceId`. Generated from server/runtime-api/contract.ts; unknown request fields are ignored.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    security: [{ runtimeKey: [] }],
    /** The API's limits on what a Runtime sends, so a Runtime can check a result before it submits it. */
    "x-runtime-limits": {
      maxBodyBytes: MAX_BODY_BYTES,
      modelProvider: RESULT_LIMITS.modelProvider,
      modelName: RESULT_LIMITS.modelName,
      promptVersion: RESULT_LIMITS.promptVersion,
      errorMessage: 2000,
      rejectedOutputBytes: REJECTION_LIMITS.outputBytes,
      rejectedOutputDepth: REJECTION_LIMITS.outputDepth,
      violations: REJECTION_LIMITS.violations,
    },
    paths,
    components: { securitySchemes: { runtimeKey: { type: "http", scheme: "bearer" } }, schemas },
  };
}
