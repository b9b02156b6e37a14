import { z } from "zod";
import { errorBodySchema, errorComponents } from "../error-schemas";
import { maxBodyBytes } from "./dispatch";
import { ROUTES } from "./routes";
import { EXTERNAL_ID, MATERIAL_TEXT_BYTES, MAX_ACTIVITY_ITEMS } from "./schemas";
import { SCOPES } from "./service-keys";
import { DELIVERY_HEADER, jobFinishedWebhook, SIGNATURE_HEADER } from "../notifications/webhook-schema";
import { JOB_TYPES, jobTypeOf, type JobTypeName } from "../job-types";
import { anyOutputName, jobTypeSchemas, RETRY_AFTER_HEADER, targetTypeSchema, typeName } from "../runtime-api/openapi";
import { targetTypesOf } from "../job-types/catalogue";
import { exportAnswer, jobAnswer, jobBody, startJobAnswer } from "./schemas";

type JsonSchema = Record<string, unknown>;

/** JSON Schema 2020-12 (what OpenAPI 3.1 uses as is) from a route's zod schema: requests as sent, answers as given. */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** Codes every route may answer, by status. */
const COMMON_ERRORS: Record<number, readonly string[]> = {
  400: ["INVALID_REQUEST", "MALFORMED_JSON"],
  401: ["UNAUTHORIZED"],
  403: ["FORBIDDEN"],
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  429: ["RATE_LIMITED"],
  500: ["INTERNAL"],
  503: ["UNAVAILABLE", "OUTCOME_UNKNOWN"],
};

const pascal = (s: string) => s[0]!.toUpperCase() + s.slice(1);

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema:
      name === "jobId"
        ? { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" }
        : { type: "string", pattern: EXTERNAL_ID.source, description: "the platform's own id" },
  }));
}

/** The webhook this service sends the platform when a job finishes (JOB_WEBHOOK_URL, JOB_WEBHOOK_SECRET). */
function webhook() {
  return {
    post: {
      operationId: "jobFinished",
      summary:
        "A job finished (succeeded, failed or cancelled): POSTed to JOB_WEBHOOK_URL once per job and final status, retried until it is acknowledged.",
      description: `Check \`${SIGNATURE_HEADER}\` before trusting the body: \`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">\` keyed with JOB_WEBHOOK_SECRET; compare in constant time and refuse a \`t\` more than 300 s from your clock (replays). Every delivery attempt is signed when it is sent: a retry carries a fresh \`t\` and signature over the same body. Every delivery of one announcement carries the same \`${DELIVERY_HEADER}\` (\`<jobId>:<status>\`): answer 2xx again for a repeat. A 2xx ends the delivery; 408, 429, 5xx or no answer within 10 s are retried with backoff; any other answer is given up. Read the output with GET /api/v1/jobs/{id}.`,
      parameters: [
        {
          name: SIGNATURE_HEADER,
          in: "header",
          required: true,
          description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed with JOB_WEBHOOK_SECRET',
          schema: { type: "string", pattern: "^t=[0-9]+,v1=[0-9a-f]{64}$" },
        },
        {
          name: DELIVERY_HEADER,
          in: "header",
          required: true,
          description: "The same on every delivery of one announcement: <jobId>:<status>",
          schema: { type: "string" },
        },
      ],
      requestBody: {
        required: true,
        content: { "application/json": { schema: { $ref: "#/components/schemas/JobFinishedWebhook" } } },
      },
      responses: {
        "2XX": { description: "Received: not sent again." },
        "5XX": { description: "Sent again later, with backoff (so are 408 and 429)." },
      },
    },
  };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
type Properties = Record<string, JsonSchema>;

/**
 * A job's target for one type. In a request, one of the target kinds it runs on (each kind its
 * component, `UserTarget` without an id, the others with the platform's `externalId`); in an
 * answer, `type` one of those kinds.
 */
function targetOf(target: JsonSchema, t: JobTypeName): JsonSchema {
  const variants = target.oneOf as JsonSchema[] | undefined;
  if (!variants) return { ...target, properties: { ...(target.properties as Properties), type: targetTypeSchema(t) } };
  const kinds = targetTypesOf(t);
  const name = (kind: string) => variants.find((v) => kindOf(v) === kind)!.title as string;
  if (kinds.length === 1) return ref(name(kinds[0]!));
  return {
    description: `A ${t} job runs on: ${kinds.join(", ")}.`,
    oneOf: kinds.map((k) => ref(name(k))),
    discriminator: {
      propertyName: "type",
      mapping: Object.fromEntries(kinds.map((k) => [k, `#/components/schemas/${name(k)}`])),
    },
  };
}
const kindOf = (variant: JsonSchema) => ((variant.properties as Properties).type as { const: string }).const;

/** A job's schema for one type: `jobType` that type, its target one it runs on, then the type's own fields. */
function ofType(base: JsonSchema, t: JobTypeName, own: Properties): JsonSchema {
  const props = base.properties as Properties;
  return {
    ...base,
    title: `${t} job`,
    properties: { ...props, jobType: { type: "string", const: t }, target: targetOf(props.target!, t), ...own },
  };
}

/** One of the types' schemas, told apart by `jobType`. */
function byType(name: (t: JobTypeName) => string, description: string): JsonSchema {
  return {
    description,
    oneOf: JOB_TYPES.map((t) => ref(name(t))),
    discriminator: {
      propertyName: "jobType",
      mapping: Object.fromEntries(JOB_TYPES.map((t) => [t, `#/components/schemas/${name(t)}`])),
    },
  };
}

/**
 * A job's params (when it is started) and output (when it is read) typed per job type: each type's
 * variant, discriminated by `jobType`, with the target types it runs on.
 */
function typeJobs(schemas: Record<string, JsonSchema>, name: string, r: (typeof ROUTES)[number]) {
  if (r.body === jobBody) {
    const base = schemas[`${name}Request`]!;
    for (const variant of (base.properties as Properties).target!.oneOf as JsonSchema[])
      schemas[variant.title as string] = variant;
    for (const t of JOB_TYPES)
      schemas[`${typeName(t)}JobRequest`] = ofType(base, t, { params: ref(`${typeName(t)}Params`) });
    schemas[`${name}Request`] = byType(
      (t) => `${typeName(t)}JobRequest`,
      "The job to start: its type, a target of a type it runs on, and its type's params.",
    );
  }
  if (r.answer !== jobAnswer && r.answer !== startJobAnswer) return;
  if (!schemas.Job) {
    const base = jsonSchema(jobAnswer, "output");
    for (const t of JOB_TYPES)
      schemas[`${typeName(t)}Job`] = ofType(base, t, {
        output: {
          description: `Present once the job succeeded: its output, in the version \`outputSchemaVersion\` names (new jobs: ${jobTypeOf(t).output.version}; a job run by a protocol-1 Runtime: v1).`,
          anyOf: [ref(anyOutputName(t)), { type: "null" }],
        },
      });
    schemas.Job = byType((t) => `${typeName(t)}Job`, "A job, with the output of its type once it succeeded.");
  }
  if (r.answer === jobAnswer) schemas[`${name}Answer`] = ref("Job");
  else (schemas[`${name}Answer`]!.properties as Properties).job = ref("Job");
}

/**
 * The export's jobs typed per job type, as a job read by GET /jobs/{id} is: each row's `jobType`
 * one type, its target type one the type runs on, and its stored result's `output` that type's
 * output (`<Type>Output`).
 */
function typeExportedJobs(schemas: Record<string, JsonSchema>, answer: string) {
  const jobs = (schemas[answer]!.properties as Properties).jobs!;
  const base = jobs.items as JsonSchema;
  const props = base.properties as Properties;
  const result = props.result!;
  const [stored, none] = result.anyOf as [JsonSchema, JsonSchema];
  for (const t of JOB_TYPES)
    schemas[`${typeName(t)}ExportedJob`] = {
      ...base,
      title: `${t} job, exported`,
      properties: {
        ...props,
        jobType: { type: "string", const: t },
        targetType: targetTypeSchema(t),
        result: {
          ...result,
          anyOf: [
            {
              ...stored,
              properties: { ...(stored.properties as Properties), output: ref(anyOutputName(t)) },
            },
            none,
          ],
        },
      },
    };
  jobs.items = byType(
    (t) => `${typeName(t)}ExportedJob`,
    "A job of the learner, with its stored result's output typed by its `jobType`.",
  );
}

/**
 * The platform API's version (semver, docs/contract.md#versions-and-the-compatibility-promise): it
 * moves with every change of the document; a change that breaks a client is a new major.
 * tests/platform/openapi-version.test.ts holds each version to one document.
 */
export const PLATFORM_API_VERSION = "2.0.0";

/** The platform API's OpenAPI 3.1 document, generated from the zod schemas its routes parse with. */
export function buildPlatformOpenApi() {
  const schemas: Record<string, JsonSchema> = {};
  const allCodes: string[] = [];
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) {
    const name = pascal(r.operationId);
    schemas[`${name}Answer`] = jsonSchema(r.answer, "output");
    if (r.body) schemas[`${name}Request`] = jsonSchema(r.body, "input");
    typeJobs(schemas, name, r);
    if (r.answer === exportAnswer) typeExportedJobs(schemas, `${name}Answer`);
    const success = r.method === "PUT" || r.operationId === "startJob" ? ["200", "201"] : ["200"];
    const responses: Record<string, unknown> = {};
    for (const status of success) {
      responses[status] = {
        description: status === "201" ? "Created" : "OK",
        content: { "application/json": { schema: { $ref: `#/components/schemas/${name}Answer` } } },
      };
    }
    const errors: Record<number, string[]> = {};
    for (const [status, codes] of [...Object.entries(COMMON_ERRORS), ...Object.entries(r.errors)])
      errors[Number(status)] = [...new Set([...(errors[Number(status)] ?? []), ...codes])];
    for (const [status, codes] of Object.entries(errors)) {
      allCodes.push(...codes);
      responses[status] = {
        description:
          status === "503"
            ? "error.code is UNAVAILABLE (the database is unreachable or timed out; nothing was changed) or OUTCOME_UNKNOWN (the write's commit was not confirmed in time; it may have happened: repeat the same call with the same idempotencyKey). Retry after the Retry-After header's seconds."
            : `error.code is one of: ${codes.join(", ")}`,
        ...(status === "429"
          ? {
              headers: {
                "Retry-After": {
                  description: "Seconds until the rate limit, or the cap on work at once, allows another request.",
                  required: true,
                  schema: { type: "integer", minimum: 1 },
                },
              },
            }
          : status === "503"
            ? { headers: { "Retry-After": RETRY_AFTER_HEADER } }
            : {}),
        content: { "application/json": { schema: errorBodySchema(codes) } },
      };
    }
    (paths[`/api/v1${r.path}`] ??= {})[r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      description: `Scope: \`${r.scope}\`.`,
      security: [{ serviceKey: [r.scope] }],
      parameters: pathParameters(r.path),
      ...(r.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: { $ref: `#/components/schemas/${name}Request` } } },
            },
          }
        : {}),
      responses,
    };
  }
  Object.assign(schemas, jobTypeSchemas("input"));
  return {
    openapi: "3.1.0",
    info: {
      title: "AI Job Runtime — platform API",
      version: PLATFORM_API_VERSION,
      description:
        'Server to server: a learning platform sends its learners and their learning data by its own ids (`externalId`, every write an idempotent upsert), starts analyses and reads their results (docs/platform-api.md). Every call carries `Authorization: Bearer <service key>`; each key has scopes. Errors are `{"error": {code, message, details}}`: each error status lists its codes, one schema per code, with `details` in that code\'s shape (or `false`: none). Finished jobs are announced by the `jobFinished` webhook (the `webhooks` section), signed with X-AJR-Signature. Generated from server/platform/schemas.ts.',
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    security: [{ serviceKey: [] }],
    "x-platform-limits": {
      maxBodyBytes: maxBodyBytes(),
      materialTextBytes: MATERIAL_TEXT_BYTES,
      activityItemsPerCall: MAX_ACTIVITY_ITEMS,
      scopes: [...SCOPES],
    },
    paths,
    webhooks: { jobFinished: webhook() },
    components: {
      securitySchemes: {
        serviceKey: {
          type: "http",
          scheme: "bearer",
          description: `A service key (npm run service-key, or the admin console). Scopes: ${SCOPES.join(", ")}.`,
        },
      },
      schemas: {
        ...schemas,
        JobFinishedWebhook: jsonSchema(jobFinishedWebhook, "output"),
        ...errorComponents(allCodes),
      },
    },
  };
}
