import { z } from "zod";
import { COMMON_QUALITY_RULES } from "../job-types/define";
import { JOB_TYPE_LABELS, JOB_TYPES, jobTypeOf, targetTypesOf, type JobTypeName } from "../job-types";
import { FAILURE_CODES } from "../jobs/constants";
import { jobSummary, leasedJob, RESULT_LIMITS, REJECTION_LIMITS, violationSchema } from "./contract";
import { RETRY_AFTER_SECONDS } from "../errors";
import { errorBodySchema, errorComponents } from "../error-schemas";
import { MAX_BODY_BYTES } from "./dispatch";
import { ENDPOINTS } from "./endpoints";
import { PROTOCOL_MAJORS, RUNTIME_PROTOCOL_VERSION } from "./protocol";

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
  400: ["INVALID_REQUEST", "MALFORMED_JSON", "UNSUPPORTED_PROTOCOL_VERSION"],
  401: ["UNAUTHORIZED"],
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  429: ["RATE_LIMITED"],
  500: ["INTERNAL"],
  503: ["UNAVAILABLE", "OUTCOME_UNKNOWN"],
} as const;

/** Every code an endpoint answers with, per status. */
const errorsOf = (e: { errors: Record<number, readonly string[]> }): Record<number, readonly string[]> => ({
  ...COMMON_ERRORS,
  ...e.errors,
});
/** What an item of POST /results may carry: what its own POST /{jobId}/result would have answered. */
const resultErrorCodes = () => Object.values(errorsOf(ENDPOINTS.result)).flat();

/** A fail's answer: where the job went. */
const FAIL_STATUS = {
  type: "string",
  enum: ["pending", "failed", "cancelled"],
  description:
    "pending: put back for another attempt at runAfter (retryCount + 1); the job keeps this failure as its last error (errorCode, errorMessage) until an attempt succeeds. failed: no retries left, or a code that is not retried. cancelled: a cancel was requested.",
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const pascal = (s: string) => s.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());
export const typeName = (t: JobTypeName) => pascal(t);
const properties = (s: JsonSchema) => s.properties as Record<string, unknown>;
const dateTime = { type: "string", format: "date-time" };

/** The header every 503 UNAVAILABLE answer carries. */
export const RETRY_AFTER_HEADER = {
  description: "Seconds to wait before retrying (503 UNAVAILABLE: the database is unreachable or timed out).",
  required: true,
  schema: { type: "integer", minimum: 1, example: RETRY_AFTER_SECONDS },
};

/** The header every 429 RATE_LIMITED answer carries. */
const RATE_RETRY_AFTER_HEADER = {
  description:
    "Seconds to wait: this Runtime key passed RUNTIME_KEY_RATE_LIMIT requests a second or RUNTIME_KEY_CONCURRENCY at once (per app process).",
  required: true,
  schema: { type: "integer", minimum: 1 },
};

/** Each type's output schema, with its quality rules in prose (the API refuses an output that breaks one with 422). */
function outputSchema(t: JobTypeName, version: "v1" | "v2" = "v2"): JsonSchema {
  const type = jobTypeOf(t);
  const rules: Record<string, string> = {
    knowledge_point_unknown: COMMON_QUALITY_RULES.knowledge_point_unknown,
    ...type.qualityRules,
  };
  const schema = version === "v1" ? (type.output.v1 ?? type.output.schema) : type.output.schema;
  return {
    ...jsonSchema(schema, "input"),
    title: `${t} output (${version})`,
    description: [
      `What a Runtime submits as \`output\` for a ${t} job (outputSchemaVersion "${version}"${version === "v1" ? ", protocol 1: results stored as v1 are read and shown as they are" : ""}). Beyond this schema the API checks these quality rules (rule name: what it asks):`,
      ...Object.entries(rules).map(([rule, prose]) => `- ${rule}: ${prose}`),
    ].join("\n"),
    "x-quality-rules": rules,
  };
}

/** The types whose v1 output differs from v2 (the others' v1 is their v2). */
export const TYPES_WITH_V1 = JOB_TYPES.filter((t) => !!jobTypeOf(t).output.v1);

/** A type's output in either version: `<Type>AnyOutput` when its v1 differs, else `<Type>Output`. */
export const anyOutputName = (t: JobTypeName) =>
  TYPES_WITH_V1.includes(t) ? `${typeName(t)}AnyOutput` : `${typeName(t)}Output`;

/** The schemas of the job types and of the shapes the endpoints share, referenced from the endpoints'. */
function sharedSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {
    JobType: { type: "string", enum: [...JOB_TYPES] },
    FailureCode: {
      type: "string",
      enum: Object.keys(FAILURE_CODES),
      description: `Retryable (back to pending while retries remain, each spending one): ${Object.entries(FAILURE_CODES)
        .filter(([, c]) => c.retryable)
        .map(([k]) => k)
        .join(", ")}. The others end the job (CANCELLED only after a cancel request).`,
    },
    Violation: jsonSchema(violationSchema, "output"),
  };
  // Each type's leased job in full (no allOf: the base refuses fields it does not name).
  const base = jsonSchema(leasedJob, "output");
  const mapping: Record<string, string> = {};
  for (const t of JOB_TYPES) {
    const name = typeName(t);
    schemas[`${name}LeasedJob`] = {
      ...base,
      description: `${JOB_TYPE_LABELS[t].title}: ${JOB_TYPE_LABELS[t].blurb} Targets: ${targetTypesOf(t).join(", ")}.`,
      properties: {
        ...properties(base),
        jobType: { type: "string", const: t },
        targetType: targetTypeSchema(t),
        params: ref(`${name}Params`),
      },
    };
    mapping[t] = `#/components/schemas/${name}LeasedJob`;
  }
  Object.assign(schemas, jobTypeSchemas("output"));
  schemas.LeasedJob = {
    description:
      "A job whose lease the caller holds, with its type's params. `snapshot` is null only for a job that has none (see docs/protocol.md): fail it INVALID_SNAPSHOT.",
    oneOf: JOB_TYPES.map((t) => ref(`${typeName(t)}LeasedJob`)),
    discriminator: { propertyName: "jobType", mapping },
  };
  schemas.Output = {
    description:
      "The output of the job's type, in the version `outputSchemaVersion` names (each refuses fields it does not name).",
    anyOf: JOB_TYPES.map((t) => ref(anyOutputName(t))),
  };
  schemas.ClaimedJob = {
    type: "object",
    required: ["kind", "job", "lockUntil"],
    properties: { kind: { type: "string", const: "claimed" }, job: ref("LeasedJob"), lockUntil: dateTime },
  };
  const summary = jsonSchema(jobSummary, "output");
  schemas.UnclaimedJob = {
    ...summary,
    required: ["kind", ...(summary.required as string[])],
    properties: { kind: { type: "string", const: "unclaimed" }, ...properties(summary) },
  };
  schemas.PollItem = {
    oneOf: [ref("ClaimedJob"), ref("UnclaimedJob")],
    discriminator: {
      propertyName: "kind",
      mapping: { claimed: "#/components/schemas/ClaimedJob", unclaimed: "#/components/schemas/UnclaimedJob" },
    },
  };
  return schemas;
}
/**
 * A /results item's output tied to its job's type: one variant per type (`<Type>ResultItem`,
 * `jobType` that type and `output` its output), told apart by `jobType`.
 */
function resultItems(request: JsonSchema, schemas: Record<string, JsonSchema>): JsonSchema {
  const item = (properties(request).results as { items: JsonSchema }).items;
  const variants = JOB_TYPES.map((t) => ({
    ...item,
    title: `${t} result`,
    required: [...new Set([...(item.required as string[]), "jobType"])],
    properties: { ...properties(item), jobType: { type: "string", const: t }, output: ref(anyOutputName(t)) },
  }));
  const name = (t: string) => `${typeName(t as JobTypeName)}ResultItem`;
  JOB_TYPES.forEach((t, i) => (schemas[name(t)] = variants[i]!));
  // Protocol 1's item names no jobType (the job knows its type): its output is any type's.
  schemas.UntypedResultItem = {
    ...item,
    title: "result without jobType (protocol 1)",
    required: (item.required as string[]).filter((f) => f !== "jobType"),
    properties: { ...properties(item), jobType: false, output: ref("Output") },
  };
  return {
    description:
      "One job's result: its `jobType` and an output of that type. An item naming another type than its job's is refused 422 INVALID_SCHEMA (rule job_type_mismatch) and fails the job, as every 422 does. Protocol 1 items name no jobType (`UntypedResultItem`): the job's own type is used.",
    anyOf: [...JOB_TYPES.map((t) => ref(name(t))), ref("UntypedResultItem")],
  };
}

/** The endpoints' own schemas, with the shared ones put in by reference where zod's would be untyped. */
function endpointSchemas(name: string, request: JsonSchema, response: JsonSchema, schemas: Record<string, JsonSchema>) {
  if (name === "SubmitResults")
    (properties(request).results as { items: JsonSchema }).items = resultItems(request, schemas);
  if (name === "PollJobs") properties(response).jobs = { type: "array", items: ref("PollItem") };
  if (name === "LockJob") properties(response).job = ref("LeasedJob");
  if (name === "SubmitResult") properties(request).output = ref("Output");
  if (name === "FailJob") properties(request).errorCode = ref("FailureCode");
  if (name === "FailJob") properties(response).status = FAIL_STATUS;
  if (name === "SubmitResults") {
    const item = (properties(response).results as { items: JsonSchema }).items;
    properties(item).body = { oneOf: [ref("SubmitResultResponse"), errorBodySchema(resultErrorCodes())] };
  }
  return { request, response };
}

/** The Runtime-Protocol request header (server/runtime-api/protocol.ts). */
const PROTOCOL_PARAMETER = {
  name: "Runtime-Protocol",
  in: "header",
  required: false,
  description: `The protocol version the Runtime speaks (its major decides): ${RUNTIME_PROTOCOL_VERSION} for this document. Left out: protocol 1 (the release before the header): leases name outputSchemaVersion v1, a result without outputSchemaVersion is read as v1, and every answer carries Deprecation and Sunset. A major the app does not serve: 400 UNSUPPORTED_PROTOCOL_VERSION.`,
  schema: { type: "string", pattern: "^\\d{1,3}(\\.\\d{1,6}){0,2}$", example: RUNTIME_PROTOCOL_VERSION },
};

const protocol1 = PROTOCOL_MAJORS[1];
/** What the answers to a deprecated major carry (RFC 9745, RFC 8594). */
const DEPRECATION_HEADERS = {
  Deprecation: {
    description: `Only in answers to a deprecated protocol (today: 1, deprecated since ${protocol1.deprecatedAt.toISOString().slice(0, 10)}): \`@<unix seconds>\` of its deprecation (RFC 9745).`,
    schema: { type: "string", pattern: "^@\\d+$" },
  },
  Sunset: {
    description: `Only in answers to a deprecated protocol: the HTTP date after which the app may stop serving it (protocol 1: ${protocol1.sunsetAt.toUTCString()}; RFC 8594).`,
    schema: { type: "string" },
  },
};

/** The versions and the promise, as the document's description opens. */
const VERSIONS = `Version ${RUNTIME_PROTOCOL_VERSION} (semver: a change that breaks a Runtime is a new major). A Runtime names the version it speaks in the \`Runtime-Protocol\` header; without it the app serves protocol 1 (outputs v1, \`/results\` items without jobType) until ${protocol1.sunsetAt.toISOString().slice(0, 10)}, answering with Deprecation and Sunset headers. Upgrade the app first, then the Runtimes (docs/contract.md#versions-and-the-compatibility-promise).`;

/** The OpenAPI 3.1 document of the Runtime protocol, generated from the shared zod contract and the job-type registry. */
export function buildOpenApiDocument() {
  const schemas = sharedSchemas();
  const paths: Record<string, unknown> = {};
  for (const e of Object.values(ENDPOINTS)) {
    const name = e.operationId[0]!.toUpperCase() + e.operationId.slice(1);
    const own = endpointSchemas(name, jsonSchema(e.request, "input"), jsonSchema(e.response, "output"), schemas);
    schemas[`${name}Request`] = own.request;
    schemas[`${name}Response`] = own.response;
    const errors = errorsOf(e);
    const responses: Record<string, unknown> = {
      200: {
        description: "OK",
        headers: DEPRECATION_HEADERS,
        content: { "application/json": { schema: ref(`${name}Response`) } },
      },
    };
    for (const [status, codes] of Object.entries(errors)) {
      responses[status] = {
        description:
          status === "503"
            ? `error.code is UNAVAILABLE (the database is unreachable or timed out; nothing was changed) or OUTCOME_UNKNOWN (the write's commit was not confirmed in time; it may have happened: repeat the same call). Retry after the Retry-After header's seconds (${RETRY_AFTER_SECONDS}), with backoff.`
            : `error.code is one of: ${codes.join(", ")}`,
        ...(status === "503"
          ? { headers: { "Retry-After": RETRY_AFTER_HEADER } }
          : status === "429"
            ? { headers: { "Retry-After": RATE_RETRY_AFTER_HEADER } }
            : {}),
        content: { "application/json": { schema: errorBodySchema(codes) } },
      };
    }
    paths[e.path] = {
      post: {
        operationId: e.operationId,
        summary: e.summary,
        parameters: [
          PROTOCOL_PARAMETER,
          ...(e.path.includes("{jobId}")
            ? [
                {
                  name: "jobId",
                  in: "path",
                  required: true,
                  schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
                },
              ]
            : []),
        ],
        requestBody: { required: true, content: { "application/json": { schema: ref(`${name}Request`) } } },
        responses,
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "AI Job Runtime — Runtime protocol",
      version: RUNTIME_PROTOCOL_VERSION,
      description:
        `${VERSIONS} ` +
        'How an external Runtime takes and executes AI jobs (docs/contract.md#the-runtime-protocol). Every request carries `Authorization: Bearer <runtime key>` and `runtimeInstanceId`. A key has scopes (docs/contract.md#consent-credentials-and-cancellation): the job types it may claim (none listed: all) and whether it may receive learners\' own model keys; poll and claim pass by jobs outside them, and lock answers 409 JOB_NOT_LOCKABLE with details.reason "key_scope". Any endpoint may answer 503 UNAVAILABLE with a Retry-After header when the database is unreachable or timed out (nothing changed): retry after that many seconds; a write whose commit was not confirmed in time answers 503 OUTCOME_UNKNOWN (it may have happened: repeat the same call). Generated from server/runtime-api/contract.ts, endpoints.ts and the job-type registry (server/job-types); unknown request fields are ignored. Leases, long polls, hand-backs and snapshots: docs/protocol.md.',
    },
    servers: [
      { url: "/", description: "The origin this document was fetched from" },
      {
        url: "{origin}",
        description: "The app's public origin (BETTER_AUTH_URL)",
        variables: { origin: { default: "http://localhost:3000" } },
      },
    ],
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
    components: {
      securitySchemes: { runtimeKey: { type: "http", scheme: "bearer" } },
      schemas: {
        ...schemas,
        ...errorComponents(Object.values(ENDPOINTS).flatMap((e) => Object.values(errorsOf(e)).flat())),
      },
    },
  };
}

/** The target types a type's jobs run on (docs/contract.md#who-uses-it), as the schema of a job's target type. */
export function targetTypeSchema(t: JobTypeName): JsonSchema {
  const targets = targetTypesOf(t);
  return { type: "string", enum: [...targets], description: `A ${t} job runs on: ${targets.join(", ")}.` };
}

/**
 * Each type's params and output as components (`<Type>Params`, `<Type>Output`): params as the API
 * delivers them (io "output": defaults applied) or as a client sends them (io "input": a field
 * left out takes its default). Both OpenAPI documents publish them.
 */
export function jobTypeSchemas(paramsIo: "input" | "output"): Record<string, JsonSchema> {
  return Object.fromEntries(
    JOB_TYPES.flatMap((t) => [
      [
        `${typeName(t)}Params`,
        {
          ...jsonSchema(jobTypeOf(t).params, paramsIo),
          title: `${t} params`,
          description:
            paramsIo === "output"
              ? `The params of a ${t} job as the API stores and delivers them (defaults applied).`
              : `The params of a ${t} job as a client sends them (a field left out takes its default).`,
        },
      ],
      [`${typeName(t)}Output`, outputSchema(t)],
      // v1, where it differs, and either version (what a stored result or a protocol-1 Runtime's output is).
      ...(jobTypeOf(t).output.v1
        ? [
            [`${typeName(t)}OutputV1`, outputSchema(t, "v1")],
            [
              `${typeName(t)}AnyOutput`,
              {
                title: `${t} output (v1 or v2)`,
                description: `A ${t} output in the version its \`outputSchemaVersion\` names.`,
                anyOf: [ref(`${typeName(t)}Output`), ref(`${typeName(t)}OutputV1`)],
              },
            ],
          ]
        : []),
    ]),
  );
}
