import { afterEach, describe, expect, it } from "vitest";
import { now, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { getJobDetail } from "@/server/jobs/queries";
import { metrics } from "@/server/observability/metrics";
import { RESULT_LIMITS } from "@/server/runtime-api/contract";
import { buildOpenApiDocument } from "@/server/runtime-api/openapi";
import { loadConfig } from "@/runtime/config";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { fingerprint } from "../helpers/states";
import { call, runtime } from "../helpers/runtime-api";

afterEach(() => {
  resetClock();
  delete process.env.JOB_BACKOFF_BASE_MS;
  delete process.env.JOB_BACKOFF_CAP_MS;
});

async function lockedJob() {
  const learner = await createLearner();
  const job = await createTestJob(learner, "weak_point_analysis");
  const key = await runtimeKey();
  const rt = runtime(key, uid("rt"));
  expect((await rt.lock(job.id)).status).toBe(200);
  const fail = (body: Record<string, unknown>) =>
    call(
      "fail",
      job.id,
      { runtimeInstanceId: rt.id, attemptNo: 1, errorCode: "MODEL_RATE_LIMIT", errorMessage: "429", ...body },
      { key },
    );
  return { learner, job, rt, key, fail };
}

const tokens = async (labels: Record<string, string>) =>
  (await metrics().tokens.get()).values
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    .reduce((a, v) => a + v.value, 0);

describe("usage and Retry-After on the Runtime protocol", () => {
  it("publishes the result limits in the OpenAPI document, and the reference Runtime checks against the same numbers", () => {
    const doc = buildOpenApiDocument() as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(doc["x-runtime-limits"]).toMatchObject({ maxBodyBytes: 262144, modelName: 128, modelProvider: 64 });
    const result = doc.components.schemas.SubmitResultRequest;
    expect(result.properties.modelName.anyOf?.[0]?.maxLength ?? result.properties.modelName.maxLength).toBe(
      RESULT_LIMITS.modelName,
    );
    expect(Object.keys(result.properties.usage.anyOf[0].properties).sort()).toEqual([
      "cacheHitTokens",
      "cacheMissTokens",
      "completionTokens",
      "durationMs",
      "model",
      "promptTokens",
      "provider",
    ]);
    const fail = doc.components.schemas.FailJobRequest;
    expect(fail.properties).toHaveProperty("usage");
    expect(fail.properties.retryAfterMs).toMatchObject({ type: "integer", minimum: 0 });
    expect(loadConfig({ RUNTIME_API_KEY: "k" }).maxResultBytes).toBe(doc["x-runtime-limits"].maxBodyBytes);
  });

  it("fail stores the attempt's usage (docs/contract.md#the-runtime-protocol shape) once, counts its tokens, and Retry-After sets the earliest runAfter", async () => {
    process.env.JOB_BACKOFF_BASE_MS = "100";
    process.env.JOB_BACKOFF_CAP_MS = "60000";
    const { job, fail } = await lockedJob();
    const before = await tokens({ job_type: "weak_point_analysis", kind: "prompt", api_key_mode: "platform_key" });
    const usage = {
      provider: "deepseek",
      model: "deepseek-chat",
      promptTokens: 120,
      completionTokens: 0,
      durationMs: 850,
    };
    const res = await fail({ usage, retryAfterMs: 20_000 });
    expect(res.status).toBe(200);
    const wait = new Date(res.body.runAfter).getTime() - now().getTime();
    expect(wait).toBeGreaterThanOrEqual(19_000);
    expect(wait).toBeLessThanOrEqual(20_000);
    const rows = await getDb().jobUsage.findMany({ where: { jobId: job.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      ...usage,
      attemptNo: 1,
      outcome: "MODEL_RATE_LIMIT",
      jobType: "weak_point_analysis",
      apiKeyMode: "platform_key",
    });
    expect(
      (await tokens({ job_type: "weak_point_analysis", kind: "prompt", api_key_mode: "platform_key" })) - before,
    ).toBe(120);
  });

  it("usage commits with the outcome or not at all: a refused fail (lease lost) stores nothing", async () => {
    const { job, fail } = await lockedJob();
    expect((await fail({ usage: { promptTokens: 1 } })).status).toBe(200);
    // The attempt is over: the same report again is LOCK_LOST, one from a stranger's key is answered as
    // for no such job (404), and neither adds usage.
    expect((await fail({ usage: { promptTokens: 999 } })).status).toBe(409);
    const stranger = runtime(await runtimeKey(), uid("rt"));
    const res = await call(
      "fail",
      job.id,
      { runtimeInstanceId: stranger.id, attemptNo: 2, errorCode: "NETWORK_ERROR", usage: { promptTokens: 5 } },
      { key: await runtimeKey() },
    );
    expect(res.status).toBe(404);
    expect(await getDb().jobUsage.findMany({ where: { jobId: job.id } })).toMatchObject([
      { attemptNo: 1, promptTokens: 1 },
    ]);
  });

  it("Retry-After never pushes runAfter past the backoff cap", async () => {
    process.env.JOB_BACKOFF_BASE_MS = "100";
    process.env.JOB_BACKOFF_CAP_MS = "5000";
    const { fail } = await lockedJob();
    const res = await fail({ retryAfterMs: 3_600_000 });
    const wait = new Date(res.body.runAfter).getTime() - now().getTime();
    expect(wait).toBeGreaterThanOrEqual(4_000);
    expect(wait).toBeLessThanOrEqual(5_000);
  });

  it("a result's usage is stored once however often the same result is repeated", async () => {
    const { learner, job, rt } = await lockedJob();
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    const extra = {
      usage: { provider: "deepseek", model: "deepseek-chat", promptTokens: 10, completionTokens: 5, durationMs: 12 },
    };
    expect((await rt.result(job.id, 1, output, extra)).body).toMatchObject({ idempotent: false });
    expect((await rt.result(job.id, 1, output, extra)).body).toMatchObject({ idempotent: true });
    expect(await getDb().jobUsage.findMany({ where: { jobId: job.id } })).toMatchObject([
      { outcome: "succeeded", promptTokens: 10, completionTokens: 5 },
    ]);
    // The usage row is its one copy: the result row keeps none, and the job detail reads the row.
    expect((await jobRow(job.id)).result!.usage).toBeNull();
    expect((await getJobDetail(job.id)).result!.usage).toEqual({
      ...extra.usage,
      cacheHitTokens: 0,
      cacheMissTokens: 0,
    });
  });

  it("the job detail shows the usage a result stored before the usage row was its one copy, when there is no usage row", async () => {
    const { learner, job, rt } = await lockedJob();
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    expect((await rt.result(job.id, 1, output)).status).toBe(200);
    expect(await getDb().jobUsage.count({ where: { jobId: job.id } })).toBe(0);
    expect((await getJobDetail(job.id)).result!.usage).toBeNull();
    // As the previous release stored it: the usage as a JSON on the result row.
    const old = { provider: "deepseek", promptTokens: 3, completionTokens: 4 };
    await getDb().aiRuntimeResult.update({ where: { jobId: job.id }, data: { usage: old } });
    expect((await getJobDetail(job.id)).result!.usage).toEqual(old);
  });

  const bad: [string, Record<string, unknown>][] = [
    ["string token counts", { usage: { promptTokens: "12" } }],
    ["negative token counts", { usage: { completionTokens: -1 } }],
    ["a model name over 128 characters", { usage: { model: "m".repeat(129) } }],
    ["a fractional duration", { usage: { durationMs: 1.5 } }],
    ["usage that is not an object", { usage: [1, 2] }],
    ["a negative retryAfterMs", { retryAfterMs: -5 }],
    ["a retryAfterMs over a day", { retryAfterMs: 86_400_001 }],
  ];
  for (const [name, body] of bad) {
    it(`fail with ${name} → 400 INVALID_REQUEST, nothing changed, no usage row`, async () => {
      const { job, fail } = await lockedJob();
      const before = await fingerprint(job.id);
      const res = await fail(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "INVALID_REQUEST", message: expect.any(String) });
      expect(await fingerprint(job.id)).toEqual(before);
      expect(await getDb().jobUsage.count({ where: { jobId: job.id } })).toBe(0);
    });
  }

  it("hostile keys in usage (__proto__, toString) are dropped, not stored and never a 5xx", async () => {
    const { job, fail } = await lockedJob();
    const raw = '{"usage":{"__proto__":{"promptTokens":5},"toString":1,"constructor":{"x":1},"promptTokens":3}}';
    const res = await fail(JSON.parse(raw));
    expect(res.status).toBe(200);
    expect(await getDb().jobUsage.findMany({ where: { jobId: job.id } })).toMatchObject([{ promptTokens: 3 }]);
  });
});
