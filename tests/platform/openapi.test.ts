import Ajv2020 from "ajv/dist/2020";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as openapiGet } from "@/app/api/v1/openapi.json/route";
import { ROUTES } from "@/server/platform/routes";
import { SCOPES } from "@/server/platform/scopes";
import { getDb } from "@/server/db";
import { runtimeKey, uid } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { callApi, serviceKey } from "../helpers/platform-api";
import { runtime } from "../helpers/runtime-api";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { deliverWebhook, jobFinishedPayload, verifySignature } from "@/server/notifications/webhook";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document, read by shape
let doc: Record<string, any>;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const escape = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const validator = (pointer: string) =>
  ajv.getSchema(`https://doc.test/platform.json#${pointer}`) ??
  ajv.compile({ $ref: `https://doc.test/platform.json#${pointer}` });

beforeAll(async () => {
  const res = openapiGet();
  expect(res.status).toBe(200);
  doc = await res.json();
  ajv.addSchema({ ...doc, $id: "https://doc.test/platform.json" });
});

type Method = "GET" | "PUT" | "POST" | "DELETE";
/** Calls the route and checks the request and the answer against what the document says for them. */
async function documented(method: Method, template: string, ids: Record<string, string>, body?: unknown, key?: string) {
  const path = template.replace(/\{(\w+)\}/g, (_, n: string) => ids[n]!);
  const op = doc.paths[`/api/v1${template}`][method.toLowerCase()];
  if (body !== undefined && op.requestBody) {
    const validate = validator(
      `/paths/${escape(`/api/v1${template}`)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`,
    );
    expect(validate(body), `${template} request: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
  const res = await callApi(method, path, body, { key });
  expect(op.responses[String(res.status)], `${method} ${template} answered ${res.status}, undocumented`).toBeDefined();
  const validate = validator(
    `/paths/${escape(`/api/v1${template}`)}/${method.toLowerCase()}/responses/${res.status}/content/application~1json/schema`,
  );
  expect(validate(res.body), `${method} ${template} ${res.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  return res;
}

describe("the OpenAPI document at /api/v1/openapi.json", () => {
  it("is OpenAPI 3.1 and describes every route, with its scope and its parameters; every schema compiles", () => {
    expect(doc.openapi).toBe("3.1.0");
    const described = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(described.sort()).toEqual(ROUTES.map((r) => `${r.method} /api/v1${r.path}`).sort());
    for (const r of ROUTES) {
      const op = doc.paths[`/api/v1${r.path}`][r.method.toLowerCase()];
      expect(op.security).toEqual([{ serviceKey: [r.scope] }]);
      expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(
        [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
      );
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "429"]));
      expect(Boolean(op.requestBody)).toBe(Boolean(r.body));
    }
    expect(doc["x-platform-limits"].scopes).toEqual([...SCOPES]);
    // Each schema compiles with the document's own references resolved.
    for (const name of Object.keys(doc.components.schemas))
      expect(() => validator(`/components/schemas/${escape(name)}`), name).not.toThrow();
    // Every error answer names its codes as constants, and each code's details by its shape.
    const schemas = doc.components.schemas as Record<string, { properties: { code: { const: string } } }>;
    for (const [name, schema] of Object.entries(schemas))
      if (name.endsWith("Error")) expect(schema.properties.code.const, name).toMatch(/^[A-Z_]+$/);
    expect(doc.components.schemas.RateLimitedError.required).toContain("details");
    expect(doc.components.schemas.NotFoundError.properties.details).toBe(false);
  });

  it("matches what the routes answer: a walk through every route, successes and errors", async () => {
    const key = await serviceKey();
    const learner = uid("ext");
    const ids = { externalId: learner, materialId: "m-1" };
    expect((await documented("PUT", "/learners/{externalId}", ids, { name: "Doc", aiConsent: true }, key)).status).toBe(
      201,
    );
    expect((await documented("PUT", "/learners/{externalId}", ids, { name: "   " }, key)).status).toBe(400);
    const mat = {
      title: "Doc material",
      text: "Text",
      knowledgePoints: [{ externalId: "kp-1", title: "One" }],
    };
    expect((await documented("PUT", "/learners/{externalId}/materials/{materialId}", ids, mat, key)).status).toBe(201);
    const activity = {
      quizAttempts: [
        { externalId: "q-1", knowledgePointExternalId: "kp-1", correct: true, answeredAt: "2026-11-01T10:00:00Z" },
      ],
      studySessions: [{ externalId: "s-1", materialExternalId: "m-1", startedAt: "2026-11-01T09:00:00Z", minutes: 20 }],
    };
    expect((await documented("POST", "/learners/{externalId}/activity", ids, activity, key)).body.new).toBe(2);
    const unknownKp = { quizAttempts: [{ ...activity.quizAttempts[0]!, knowledgePointExternalId: "nope" }] };
    expect((await documented("POST", "/learners/{externalId}/activity", ids, unknownKp, key)).status).toBe(422);
    const job = { jobType: "learning_state_analysis", target: { type: "user" }, idempotencyKey: "doc-1" };
    const started = await documented("POST", "/learners/{externalId}/jobs", ids, job, key);
    expect(started.status).toBe(201);
    expect((await documented("POST", "/learners/{externalId}/jobs", ids, job, key)).status).toBe(200);
    expect(
      (await documented("POST", "/learners/{externalId}/jobs", { externalId: uid("nobody") }, job, key)).status,
    ).toBe(404);
    const jobId = started.body.job.id;
    expect((await documented("GET", "/jobs/{jobId}", { jobId }, undefined, key)).status).toBe(200);
    expect((await documented("GET", "/jobs/{jobId}", { jobId: "missing" }, undefined, key)).status).toBe(404);
    expect((await documented("GET", "/jobs/{jobId}", { jobId }, undefined, "ajs_wrong")).status).toBe(401);
    // A failed attempt put back to pending: the job carries that attempt's error while it waits.
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(jobId)).status).toBe(200);
    expect((await rt.fail(jobId, 1, "MODEL_TIMEOUT", "the model took too long")).body.status).toBe("pending");
    const retrying = await documented("GET", "/jobs/{jobId}", { jobId }, undefined, key);
    expect(retrying.body).toMatchObject({ status: "pending", error: { code: "MODEL_TIMEOUT" }, output: null });
    expect((await documented("POST", "/jobs/{jobId}/cancel", { jobId }, undefined, key)).body.status).toBe("cancelled");
    expect((await documented("POST", "/jobs/{jobId}/cancel", { jobId: "missing" }, undefined, key)).status).toBe(404);
    const exported = await documented("GET", "/learners/{externalId}/export", ids, undefined, key);
    expect(exported.body.jobs[0].events.length).toBeGreaterThan(0);
    expect(exported.body.materials[0].externalId).toBe("m-1");
    const tooBig = { ...mat, text: "x".repeat(200 * 1024 + 1) };
    expect((await documented("PUT", "/learners/{externalId}/materials/{materialId}", ids, tooBig, key)).status).toBe(
      413,
    );
    const readOnly = await serviceKey(["jobs:read"]);
    expect((await documented("PUT", "/learners/{externalId}", ids, { name: "x" }, readOnly)).status).toBe(403);
    expect(await getDb().user.count({ where: { externalId: learner } })).toBe(1);
  });

  it("closes the export and the erase answer: a succeeded job's typed output, its usage with cache figures, named ratings, the cancelled jobs' ids", async () => {
    const key = await serviceKey();
    const ext = uid("ext");
    const ids = { externalId: ext, materialId: "m-1" };
    await documented("PUT", "/learners/{externalId}", ids, { name: "Closed", aiConsent: true, locale: "zh-CN" }, key);
    const mat = { title: "M", text: "Text", knowledgePoints: [{ externalId: "kp-1", title: "One" }] };
    await documented("PUT", "/learners/{externalId}/materials/{materialId}", ids, mat, key);
    const review = {
      externalId: "r-1",
      cardExternalId: "c-1",
      front: "F",
      back: "B",
      reviewedAt: "2026-11-01T10:00:00Z",
    };
    const rated = await documented(
      "POST",
      "/learners/{externalId}/activity",
      ids,
      { reviews: [{ ...review, rating: "hard" }] },
      key,
    );
    expect(rated.status).toBe(200);
    expect(
      (
        await callApi(
          "POST",
          `/learners/${ext}/activity`,
          { reviews: [{ ...review, externalId: "r-2", rating: 2 }] },
          { key },
        )
      ).status,
    ).toBe(400);
    const quiz = await documented(
      "POST",
      "/learners/{externalId}/jobs",
      ids,
      { jobType: "quiz_generation", target: { type: "material", externalId: "m-1" }, params: { count: 1 } },
      key,
    );
    const waiting = await documented(
      "POST",
      "/learners/{externalId}/jobs",
      ids,
      { jobType: "weak_point_analysis", target: { type: "user" } },
      key,
    );
    const rt = runtime(await runtimeKey(), uid("rt"));
    const jobId = quiz.body.job.id as string;
    expect((await rt.lock(jobId)).status).toBe(200);
    const kps = (await getDb().knowledgePoint.findMany({ where: { user: { externalId: ext } } })).map((k) => k.id);
    const usage = { promptTokens: 100, completionTokens: 20, cacheHitTokens: 60, cacheMissTokens: 40 };
    expect((await rt.result(jobId, 1, validOutput("quiz_generation", kps, { count: 1 }), { usage })).status).toBe(200);

    const exported = await documented("GET", "/learners/{externalId}/export", ids, undefined, key);
    const done = exported.body.jobs.find((j: { id: string }) => j.id === jobId);
    expect(done.result.output.questions).toHaveLength(1);
    expect(done.usage[0]).toMatchObject({ cacheHitTokens: 60, cacheMissTokens: 40 });
    expect(done.locale).toBe("zh-CN");
    expect(exported.body.reviewCards[0].logs.map((l: { rating: string }) => l.rating)).toEqual(["hard"]);
    // The document refuses what the export never carries: a field it does not name, an output of another type.
    const row = "/components/schemas/QuizGenerationExportedJob";
    expect(validator(row)(done)).toBe(true);
    expect(validator(row)({ ...done, queueTurn: 0 })).toBe(false);
    expect(validator(row)({ ...done, result: { ...done.result, output: { flashcards: [] } } })).toBe(false);
    expect(validator(row)({ ...done, errorCode: "BOOM" })).toBe(false);

    const erased = await documented("DELETE", "/learners/{externalId}", ids, undefined, key);
    expect(erased.body.cancelledJobIds).toEqual([waiting.body.job.id]);
    expect(erased.body.counts).toMatchObject({ cancelledInFlight: 1, jobs: 2, reviewLogs: 1 });
    expect(
      validator("/components/schemas/EraseLearnerAnswer")({
        ...erased.body,
        counts: { ...erased.body.counts, other: 1 },
      }),
    ).toBe(false);
  });

  it("documents 503 UNAVAILABLE with Retry-After on every route, and a live 503 (quota row held) matches it", async () => {
    for (const r of ROUTES) {
      const op = doc.paths[`/api/v1${r.path}`][r.method.toLowerCase()];
      expect(op.responses["503"].headers["Retry-After"], `${r.method} ${r.path}`).toMatchObject({
        required: true,
        schema: { type: "integer", minimum: 1 },
      });
      expect(op.responses["503"].description).toMatch(/Retry-After/);
      expect(op.responses["429"].headers["Retry-After"].schema.type).toBe("integer");
    }
    // A real 503: another connection holds the learner's quota counter, so the creation misses its deadline.
    const key = await serviceKey();
    const ids = { externalId: uid("ext-busy") };
    expect(
      (await documented("PUT", "/learners/{externalId}", ids, { name: "Busy", aiConsent: true }, key)).status,
    ).toBe(201);
    const job = { jobType: "weak_point_analysis", target: { type: "user" }, idempotencyKey: "doc-busy" };
    expect((await documented("POST", "/learners/{externalId}/jobs", ids, job, key)).status).toBe(201);
    const user = await getDb().user.findFirstOrThrow({ where: { externalId: ids.externalId } });
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    process.env.JOB_CREATE_TIMEOUT_MS = "800";
    let busy: Awaited<ReturnType<typeof documented>>;
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT * FROM "QuotaUsage" WHERE "userId" = $1 FOR UPDATE`, [user.id]);
      busy = await documented(
        "POST",
        "/learners/{externalId}/jobs",
        ids,
        { ...job, idempotencyKey: "doc-busy-2" },
        key,
      );
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
      delete process.env.JOB_CREATE_TIMEOUT_MS;
    }
    expect(busy.status).toBe(503);
    expect(busy.body.error.code).toBe("UNAVAILABLE");
    expect(Number(busy.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("describes the webhook: a live delivery's body and signature header match the `webhooks` section", async () => {
    const hook = doc.webhooks.jobFinished.post;
    const signature = hook.parameters.find((p: { name: string }) => p.name === "X-AJR-Signature");
    expect(signature).toMatchObject({ in: "header", required: true });
    const key = await serviceKey();
    const ids = { externalId: uid("ext-hook") };
    await documented("PUT", "/learners/{externalId}", ids, { name: "Hook", aiConsent: true }, key);
    const job = { jobType: "weak_point_analysis", target: { type: "user" } };
    const jobId = (await documented("POST", "/learners/{externalId}/jobs", ids, job, key)).body.job.id;
    expect((await documented("POST", "/jobs/{jobId}/cancel", { jobId }, undefined, key)).status).toBe(200);
    const receiver = await startWebhookReceiver();
    try {
      await deliverWebhook(
        { url: receiver.url, secret: "whsec_doc" },
        `${jobId}:cancelled`,
        await jobFinishedPayload(jobId),
      );
      const { headers, body } = receiver.received[0]!;
      expect(String(headers["x-ajr-signature"])).toMatch(new RegExp(signature.schema.pattern));
      expect(verifySignature("whsec_doc", body, String(headers["x-ajr-signature"]))).toBe(true);
      const validate = validator("/webhooks/jobFinished/post/requestBody/content/application~1json/schema");
      const sent = JSON.parse(body);
      expect(validate(sent), JSON.stringify(validate.errors)).toBe(true);
      expect(sent.job).toMatchObject({ id: jobId, status: "cancelled", learnerExternalId: ids.externalId });
      expect(validate({ ...sent, job: { ...sent.job, status: "done" } })).toBe(false);
    } finally {
      await receiver.close();
    }
  });

  it("unknown routes and methods answer in the error shape", async () => {
    const key = await serviceKey();
    const none = await callApi("GET", "/nothing/here", undefined, { key });
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe("NOT_FOUND");
    const wrong = await callApi("DELETE", "/jobs/abc", undefined, { key });
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe("METHOD_NOT_ALLOWED");
  });
});

/** The job shapes in the document (the typed client's fixture is compiled by openapi-client.test.ts). */
describe("a job typed per job type in the platform document", () => {
  it("a succeeded job's live answer matches its type's variant, and another type's output does not", async () => {
    const key = await serviceKey();
    const ids = { externalId: uid("ext-typed"), materialId: "m-typed" };
    await documented("PUT", "/learners/{externalId}", ids, { name: "Typed", aiConsent: true }, key);
    const material = {
      title: "Cells",
      text: "Cells divide.",
      knowledgePoints: [{ externalId: "kp-c", title: "Cells" }],
    };
    await documented("PUT", "/learners/{externalId}/materials/{materialId}", ids, material, key);
    const start = { jobType: "quiz_generation", target: { type: "user" }, params: { count: 1 } };
    const jobId = (await documented("POST", "/learners/{externalId}/jobs", ids, start, key)).body.job.id as string;
    const rt = runtime(await runtimeKey(), uid("rt"));
    const locked = await rt.lock(jobId);
    expect(locked.status).toBe(200);
    const kpIds = locked.body.job.snapshot.content.knowledgePoints.map((k: { id: string }) => k.id);
    expect((await rt.result(jobId, 1, validOutput("quiz_generation", kpIds, locked.body.job.params))).status).toBe(200);
    const read = await documented("GET", "/jobs/{jobId}", { jobId }, undefined, key);
    expect([read.body.status, read.body.output.questions.length]).toEqual(["succeeded", 1]);
    const validate = validator("/components/schemas/Job");
    expect(validate(read.body)).toBe(true);
    expect(validate({ ...read.body, output: validOutput("flashcard_generation", kpIds, { count: 1 }) })).toBe(false);
    expect(validate({ ...read.body, target: { ...read.body.target, type: "course" } })).toBe(false);
  });

  it("types each job type's params, targets and output, told apart by jobType", () => {
    const schemas = doc.components.schemas;
    expect(schemas.StartJobRequest.discriminator.propertyName).toBe("jobType");
    expect(schemas.Job.discriminator.propertyName).toBe("jobType");
    expect(schemas.KnowledgePointExtractionJobRequest.properties.target).toEqual({
      $ref: "#/components/schemas/MaterialTarget",
    });
    expect(schemas.QuizGenerationJobRequest.properties.target.discriminator.propertyName).toBe("type");
    expect(schemas.UserTarget.properties).not.toHaveProperty("externalId");
    expect(schemas.UserTarget.additionalProperties).toBe(false);
    expect(schemas.MaterialTarget.required).toEqual(["type", "externalId"]);
    const exported = schemas.ExportLearnerAnswer.properties.jobs.items;
    expect(exported.discriminator.propertyName).toBe("jobType");
    expect(schemas.QuizGenerationExportedJob.properties.result.anyOf[0].properties.output).toEqual({
      $ref: "#/components/schemas/QuizGenerationOutput",
    });
    expect(schemas.QuizGenerationExportedJob.additionalProperties).toBe(false);
    expect(schemas.QuizGenerationJobRequest.properties.params).toEqual({
      $ref: "#/components/schemas/QuizGenerationParams",
    });
    expect(schemas.QuizGenerationJob.properties.output.anyOf[0]).toEqual({
      $ref: "#/components/schemas/QuizGenerationOutput",
    });
    // A type whose v1 differs: either version, as `outputSchemaVersion` names it.
    expect(schemas.LearningStateAnalysisJob.properties.output.anyOf[0]).toEqual({
      $ref: "#/components/schemas/LearningStateAnalysisAnyOutput",
    });
    expect(schemas.LearningStateAnalysisAnyOutput.anyOf).toEqual([
      { $ref: "#/components/schemas/LearningStateAnalysisOutput" },
      { $ref: "#/components/schemas/LearningStateAnalysisOutputV1" },
    ]);
    expect(schemas.Job.oneOf).toContainEqual({ $ref: "#/components/schemas/LearningStateAnalysisJob" });
    expect(schemas.QuizGenerationJob.properties.error.anyOf[0].properties.code.enum).toContain("LEASE_REVOKED");
    expect(schemas.QuizGenerationJob.properties.degraded).toMatchObject({ type: ["boolean", "null"] });
    expect(schemas.QuizGenerationJob.properties.outputSchemaVersion.anyOf[0].enum).toEqual(["v1", "v2"]);
    expect(schemas.QuizGenerationOutput["x-quality-rules"]).toHaveProperty("one_correct_option");
    expect(schemas.StartJobAnswer.properties.job).toEqual({ $ref: "#/components/schemas/Job" });
  });
});
