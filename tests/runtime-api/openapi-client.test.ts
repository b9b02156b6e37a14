import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { JOB_TYPES } from "@/server/job-types";
import { FAILURE_CODES } from "@/server/jobs/constants";
import { GET as servedDocument } from "@/app/internal/runtime/openapi.json/route";
import { buildOpenApiDocument } from "@/server/runtime-api/openapi";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { runtime } from "../helpers/runtime-api";
import { describeTypedClient } from "../helpers/typed-client";

/**
 * A Runtime team in another language works from the OpenAPI document alone. Here a TypeScript
 * team does: openapi-typescript generates a client from the document as served, and a fixture that writes
 * wrong outputs, unknown error codes and mixed-up poll items must fail to compile exactly there.
 */
const doc = buildOpenApiDocument() as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
describeTypedClient(
  "a typed client generated from the OpenAPI document (wrong outputs, unknown codes, wrong details, mixed-up items)",
  () => servedDocument().json(),
  "runtime-api",
  path.join(import.meta.dirname, "typed-client", "client.fixture.ts"),
  14,
);

/** The error objects an error answer may carry (each a component, told apart by `code`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document, read by shape
function errorVariants(response: any): any[] {
  const error = response.content["application/json"].schema.properties.error;
  const refs: string[] = error.$ref ? [error.$ref] : error.oneOf.map((r: { $ref: string }) => r.$ref);
  return refs.map((r) => doc.components.schemas[r.split("/").at(-1)!]);
}

describe("the document's contract", () => {
  it("publishes each type's params and output (with its quality rules), the failure codes as an enum, and servers", () => {
    const schemas = doc.components.schemas;
    expect(doc.servers.length).toBeGreaterThan(0);
    expect(schemas.JobType.enum).toEqual(JOB_TYPES);
    expect(schemas.FailureCode.enum).toEqual(Object.keys(FAILURE_CODES));
    expect(schemas.FailJobRequest.properties.errorCode).toEqual({ $ref: "#/components/schemas/FailureCode" });
    expect(schemas.LeasedJob.discriminator.propertyName).toBe("jobType");
    expect(schemas.PollItem.discriminator.propertyName).toBe("kind");
    expect(schemas.QuizGenerationParams.properties.count).toMatchObject({ type: "integer", minimum: 1, maximum: 20 });
    expect(schemas.QuizGenerationOutput["x-quality-rules"]).toHaveProperty("one_correct_option");
    expect(schemas.QuizGenerationOutput.description).toMatch(/one_correct_option: .*exactly one option/);
    expect(schemas.Output.anyOf).toHaveLength(JOB_TYPES.length);
    expect(schemas.LearningStateAnalysisOutputV1.required).toContain("strengths");
    expect(schemas.SubmitResultRequest.properties.outputSchemaVersion.enum).toEqual(["v1", "v2"]);
    expect(schemas.SubmitResultResponse.required).toContain("degraded");
    expect(doc.info.version).toMatch(/^2\.\d+\.\d+$/);
    expect(doc.paths["/internal/runtime/jobs/poll"].post.parameters[0]).toMatchObject({
      name: "Runtime-Protocol",
      in: "header",
    });
    const error422 = errorVariants(doc.paths["/internal/runtime/jobs/{jobId}/result"].post.responses[422]);
    expect(error422.map((e) => e.properties.code.const)).toEqual(["INVALID_SCHEMA"]);
    expect(error422[0].required).toContain("details");
    expect(error422[0].properties.details).toMatchObject({
      type: "array",
      items: { required: ["path", "rule", "message"] },
    });
  });

  it("describes the live answers: a claimed poll item of every type, an unclaimed one, and a 422 with its rules", async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: "https://doc.test/openapi.json" });
    const check = (pointer: string, body: unknown) => {
      const validate = ajv.compile({ $ref: `https://doc.test/openapi.json#${pointer}` });
      expect(validate(body), `${JSON.stringify(validate.errors)} ${JSON.stringify(body)}`).toBe(true);
    };
    const learner = await createLearner();
    const kpIds = learner.knowledgePoints.map((k) => k.id);
    const rt = runtime(await runtimeKey(), uid("rt"));
    for (const t of JOB_TYPES) await createTestJob(learner, t);
    const peek = await rt.poll({ limit: 50 });
    expect(peek.body.jobs.every((j: { kind: string }) => j.kind === "unclaimed")).toBe(true);
    check("/components/schemas/PollJobsResponse", peek.body);

    const claimed = await rt.poll({ limit: 50, claim: true });
    expect(claimed.status).toBe(200);
    const items = claimed.body.jobs as { kind: string; job: { id: string; jobType: string; params: object } }[];
    expect(items.map((i) => i.kind)).toEqual(JOB_TYPES.map(() => "claimed"));
    expect(new Set(items.map((i) => i.job.jobType))).toEqual(new Set(JOB_TYPES));
    check("/components/schemas/PollJobsResponse", claimed.body);

    const quiz = items.find((i) => i.job.jobType === "quiz_generation")!.job;
    const refused = await rt.result(quiz.id, 1, {
      ...validOutput("quiz_generation", kpIds, quiz.params as Record<string, unknown>),
      questions: [],
    });
    expect(refused.status).toBe(422);
    check(
      "/paths/~1internal~1runtime~1jobs~1{jobId}~1result/post/responses/422/content/application~1json/schema",
      refused.body,
    );
    const weak = items.find((i) => i.job.jobType === "weak_point_analysis")!.job;
    const output = validOutput("weak_point_analysis", kpIds);
    check("/components/schemas/Output", output);
    expect((await rt.result(weak.id, 1, output)).status).toBe(200);
  });

  it("documents 503 UNAVAILABLE and OUTCOME_UNKNOWN with Retry-After on every operation, and the key_scope refusal a live lock answers", async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document, read by shape
    for (const [p, item] of Object.entries(doc.paths as Record<string, { post: { responses: Record<string, any> } }>)) {
      const unavailable = item.post.responses["503"];
      expect(unavailable.headers["Retry-After"], p).toMatchObject({ required: true, schema: { type: "integer" } });
      expect(unavailable.description).toMatch(/Retry-After/);
      expect(errorVariants(unavailable).map((e) => e.properties.code.const)).toEqual([
        "UNAVAILABLE",
        "OUTCOME_UNKNOWN",
      ]);
    }
    expect(doc.info.description).toMatch(/key_scope/);
    const lock409Answer = doc.paths["/internal/runtime/jobs/{jobId}/lock"].post.responses[409];
    const notLockable = errorVariants(lock409Answer).find((e) => e.properties.code.const === "JOB_NOT_LOCKABLE")!;
    expect(notLockable.properties.details.properties.reason).toMatchObject({ enum: ["key_scope"] });
    expect(notLockable.properties.details.description).toMatch(/key_scope.*scopes forbid this job/);
    // A key limited to quizzes, locking a weak-point job: the refusal the document describes.
    const learner = await createLearner();
    const weak = await createTestJob(learner, "weak_point_analysis");
    const rt = runtime(await runtimeKey({ jobTypes: ["quiz_generation"] }), uid("rt-scope"));
    const refused = await rt.lock(weak.id);
    expect([refused.status, refused.body.error.code, refused.body.error.details.reason]).toEqual([
      409,
      "JOB_NOT_LOCKABLE",
      "key_scope",
    ]);
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: "https://doc.test/openapi.json" });
    const validate = ajv.compile({
      $ref: "https://doc.test/openapi.json#/paths/~1internal~1runtime~1jobs~1{jobId}~1lock/post/responses/409/content/application~1json/schema",
    });
    expect(validate(refused.body), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ error: { ...refused.body.error, details: { reason: "other" } } })).toBe(false);
  });
});
