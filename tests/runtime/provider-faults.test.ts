import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getAdminJobDetail } from "@/server/admin/job-detail";
import { runtimeKey } from "../helpers/factories";
import { JOB_TYPES } from "@/server/job-types";
import { errorPage, type Reply } from "../providers/fake-openai-server";
import { startApiServer } from "./api-server";
import { faultScene, gaps } from "./faults";
import { startTestRuntime } from "./harness";

// Retries back off 100–200 ms · 2^retry here (capped at 2 s), so delays are measurable and short.
const ENV = { JOB_BACKOFF_BASE_MS: "200", JOB_BACKOFF_CAP_MS: "2000" };
let key: string;
let api: Awaited<ReturnType<typeof startApiServer>>;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  Object.assign(process.env, ENV);
  key = await runtimeKey();
  api = await startApiServer();
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
afterAll(async () => {
  await api.close();
  for (const k of Object.keys(ENV)) delete process.env[k];
});

async function scene(
  script: (good: string) => Reply[],
  opts: Parameters<typeof faultScene>[1] = {},
  env: Record<string, string> = {},
) {
  const s = await faultScene(script, opts);
  cleanups.push(() => s.fake.close());
  const rt = startTestRuntime(api.url, key, {
    RUNTIME_PROVIDER: "deepseek",
    DEEPSEEK_API_KEY: "sk-platform",
    DEEPSEEK_BASE_URL: s.fake.url,
    // Generous for a loaded CI machine; the deadline's own bound is tested in tests/providers.
    DEEPSEEK_TIMEOUT_MS: "1500",
    RUNTIME_CAPABILITIES: "weak_point_analysis,flashcard_generation",
    ...env,
  });
  cleanups.push(() => rt.runtime.shutdown(0));
  return { ...s, rt };
}

const MISSING_KP = JSON.stringify({
  weakPoints: [{ knowledgePointId: "kp_nowhere", title: "X", severity: "high", evidence: ["e"], suggestedReview: "r" }],
});
const error = (status: number, message = "error", headers?: Record<string, string>): Reply => ({
  status,
  error: { message },
  ...(headers ? { headers } : {}),
});

/** A proxy's 503 page (Retry-After: 10, beyond the 2 s cap here) of 2 MiB, twice the answer cap. */
const page503 = (): Reply => ({
  status: 503,
  raw: errorPage(2 * 1024 * 1024),
  contentType: "text/html",
  headers: { "retry-after": "10" },
});
const huge503 = { status: 503, declaredBytes: 1024 ** 3, headers: { "retry-after": "10" } } as const;

type Case = {
  name: string;
  script: (good: string) => Reply[];
  status: "succeeded" | "failed";
  codes: string[];
  calls: number;
  /** Least gap before each later call (the backoff, or Retry-After). */
  minGaps?: number[];
  /** Most gap before each later call: Retry-After never pushes a retry past the backoff cap. */
  maxGaps?: number[];
  maxRetryCount?: number;
  env?: Record<string, string>;
};

// Backoff lower bounds: half of 200 · 2^retry (equal jitter).
const B = [100, 200, 400];
const CASES: Case[] = [
  {
    name: "401",
    script: () => [error(401, "Authentication Fails")],
    status: "failed",
    codes: ["INVALID_CREDENTIAL"],
    calls: 1,
  },
  {
    name: "400",
    script: () => [error(400, "maximum context length exceeded")],
    status: "failed",
    codes: ["INVALID_SCHEMA"],
    calls: 1,
  },
  {
    name: "429 with Retry-After: 1, then an answer",
    script: (g) => [error(429, "rate limited", { "retry-after": "1" }), { content: g }],
    status: "succeeded",
    codes: ["MODEL_RATE_LIMIT"],
    calls: 2,
    minGaps: [1000],
  },
  {
    name: "503 with Retry-After: 1, then an answer",
    script: (g) => [error(503, "overloaded", { "retry-after": "1" }), { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
    minGaps: [1000],
  },
  {
    // A proxy's page: the status says what happened, the body's size never turns it into INVALID_SCHEMA.
    name: "503 with Retry-After: 10 and a 2 MiB HTML page (over the 1 MiB answer cap), then an answer",
    script: (g) => [page503(), { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
    minGaps: [2000],
    maxGaps: [4000],
  },
  {
    name: "503 with Retry-After: 10 declaring a 1 GiB body, a little of it sent, then held, then an answer",
    script: (g) => [{ ...huge503, then: "hold" }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
    minGaps: [2000],
    maxGaps: [5000],
  },
  {
    name: "503 with Retry-After: 10 declaring a 1 GiB body, a little of it sent, then closed, then an answer",
    script: (g) => [{ ...huge503, then: "close" }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
    minGaps: [2000],
    maxGaps: [4000],
  },
  {
    name: "429 with Retry-After: 60 (beyond the 2 s cap), then an answer",
    script: (g) => [error(429, "rate limited", { "retry-after": "60" }), { content: g }],
    status: "succeeded",
    codes: ["MODEL_RATE_LIMIT"],
    calls: 2,
    minGaps: [2000],
    maxGaps: [4000],
  },
  {
    name: "500 always",
    script: () => [error(500)],
    status: "failed",
    codes: Array(3).fill("TEMPORARY_PROVIDER_ERROR"),
    calls: 3,
    minGaps: B.slice(0, 2),
    maxRetryCount: 2,
  },
  {
    name: "502 then 503 then an answer",
    script: (g) => [error(502), error(503), { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR", "TEMPORARY_PROVIDER_ERROR"],
    calls: 3,
    minGaps: B.slice(0, 2),
  },
  {
    name: "a hang before headers, then an answer",
    script: (g) => [{ hang: true }, { content: g }],
    status: "succeeded",
    codes: ["MODEL_TIMEOUT"],
    calls: 2,
    minGaps: [B[0]!],
  },
  {
    name: "a stalled body, then an answer",
    script: (g) => [{ stallBody: true }, { content: g }],
    status: "succeeded",
    codes: ["MODEL_TIMEOUT"],
    calls: 2,
    minGaps: [B[0]!],
  },
  {
    name: "a reset before headers, then an answer",
    script: (g) => [{ reset: true }, { content: g }],
    status: "succeeded",
    codes: ["NETWORK_ERROR"],
    calls: 2,
    minGaps: [B[0]!],
  },
  {
    name: "a reset mid-body, then an answer",
    script: (g) => [{ resetMidBody: true }, { content: g }],
    status: "succeeded",
    codes: ["NETWORK_ERROR"],
    calls: 2,
    minGaps: [B[0]!],
  },
  {
    name: "a 200 with HTML, then an answer",
    script: (g) => [{ raw: "<html><body>Gateway</body></html>", contentType: "text/html" }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
    minGaps: [B[0]!],
  },
  {
    name: "truncated JSON, then an answer",
    script: (g) => [{ raw: '{"id":"x","choices":[{"message":' }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
    minGaps: [B[0]!],
  },
  {
    name: "choices: [], then an answer",
    script: (g) => [{ raw: '{"id":"x","model":"deepseek-chat","choices":[]}' }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
    minGaps: [B[0]!],
  },
  {
    name: "schema-invalid always (the quality loop, then INVALID_SCHEMA)",
    script: () => [{ content: '{"weakPoints": "none"}' }],
    status: "failed",
    codes: ["INVALID_SCHEMA"],
    calls: 4,
  },
  {
    name: "a quality-rule break once",
    script: (g) => [{ content: MISSING_KP }, { content: g }],
    status: "succeeded",
    codes: [],
    calls: 2,
  },
  {
    name: "a quality-rule break always",
    script: () => [{ content: MISSING_KP }],
    status: "failed",
    codes: ["INVALID_SCHEMA"],
    calls: 4,
  },
  {
    name: "an oversized answer",
    script: (g) => [{ content: g, padBytes: 3 * 1024 * 1024 }],
    status: "failed",
    codes: ["INVALID_SCHEMA"],
    calls: 1,
    env: { DEEPSEEK_MAX_RESPONSE_BYTES: "262144", DEEPSEEK_TIMEOUT_MS: "20000" },
  },
  {
    name: "odd usage (string and negative counts)",
    script: (g) => [{ content: g, usage: { prompt_tokens: "7", completion_tokens: -1 } }],
    status: "succeeded",
    codes: [],
    calls: 1,
  },
];

describe("reference Runtime against a misbehaving provider (fake OpenAI-compatible server over HTTP)", () => {
  for (const c of CASES) {
    it(`${c.name} → ${c.status}${c.codes.length ? ` (${c.codes.join(", ")})` : ""}, ${c.calls} model call(s), other jobs keep flowing`, async () => {
      const s = await scene(c.script, { maxRetryCount: c.maxRetryCount }, c.env);
      const row = await s.finished();
      expect(row.status).toBe(c.status);
      expect(await s.codes()).toEqual(c.codes);
      expect(s.calls()).toHaveLength(c.calls);
      const g = gaps(s.calls());
      (c.minGaps ?? []).forEach((min, i) => expect(g[i]).toBeGreaterThanOrEqual(min - 20));
      (c.maxGaps ?? []).forEach((max, i) => expect(g[i]).toBeLessThanOrEqual(max));
      // No attempt was left to the lease: every attempt ended by the Runtime's own report.
      expect(row.events.some((e) => e.errorCode === "JOB_TIMEOUT")).toBe(false);
      // Every attempt's usage is stored, failed ones included.
      const usage = await s.usage();
      expect(usage.map((u) => u.attemptNo)).toEqual(Array.from({ length: row.attemptNo }, (_, i) => i + 1));
      expect(usage.map((u) => u.outcome).filter((o) => o !== "succeeded")).toEqual(c.codes);
      expect(usage.every((u) => u.provider === "deepseek" && u.durationMs >= 0 && u.promptTokens >= 0)).toBe(true);
      await s.othersSucceeded();
      expect(s.rt.has("job.error")).toBeUndefined();
    });
  }

  for (const jobType of JOB_TYPES) {
    it(`${jobType}: a 503 with a 2 MiB page, then a 500, then an answer → succeeded on the third attempt`, async () => {
      const s = await scene(
        (g) => [page503(), error(500), { content: g }],
        { jobType, others: 0 },
        {
          RUNTIME_CAPABILITIES: jobType,
        },
      );
      const row = await s.finished();
      expect(row.status).toBe("succeeded");
      expect(row.jobType).toBe(jobType);
      expect(await s.codes()).toEqual(["TEMPORARY_PROVIDER_ERROR", "TEMPORARY_PROVIDER_ERROR"]);
      expect(row.result).toMatchObject({ attemptNo: 3, modelProvider: "deepseek", output: JSON.parse(s.good) });
    });
  }

  it("counts the tokens of every call of a failed job, quality loops included", async () => {
    const s = await scene(() => [{ content: MISSING_KP }]);
    await s.finished();
    const [usage] = await s.usage();
    // The sum of what every call of the loop reported (the fake counts each prompt's tokens).
    const reported = s.calls().reduce((n, c) => n + (c.usage?.prompt_tokens ?? 0), 0);
    expect(s.calls()).toHaveLength(4);
    expect(reported).toBeGreaterThan(4 * 100);
    expect(usage).toMatchObject({
      outcome: "INVALID_SCHEMA",
      promptTokens: reported,
      completionTokens: 200,
      apiKeyMode: "platform_key",
      jobType: "weak_point_analysis",
      userId: s.learner.user.id,
    });
  });

  it("odd usage is cleaned, never refused: the result is stored with sane counts", async () => {
    const s = await scene((g) => [
      { content: g, usage: { prompt_tokens: "7", completion_tokens: -1 }, model: "m".repeat(300) },
    ]);
    const row = await s.finished();
    expect(row.status).toBe("succeeded");
    expect(row.result!.modelName).toHaveLength(128);
    expect(await s.usage()).toMatchObject([{ provider: "deepseek", promptTokens: 7, completionTokens: 0 }]);
  });
});

/** A schema-valid weak-point answer of ~470 KB: too large for the API's 256 KB body limit. */
function hugeAnswer(good: string) {
  const base = JSON.parse(good) as { weakPoints: Record<string, unknown>[] };
  const wp = base.weakPoints[0]!;
  const evidence = Array.from({ length: 10 }, (_, i) => `${i} ${"evidence ".repeat(60)}`.slice(0, 480));
  return JSON.stringify({ weakPoints: Array.from({ length: 95 }, () => ({ ...wp, evidence })) });
}

describe("a result the API would refuse becomes an explicit failure at once", () => {
  it("checks the published body limit before submitting: INVALID_SCHEMA with the reason, no lease wait", async () => {
    const s = await scene(
      (g) => [{ content: hugeAnswer(g) }],
      { others: 1 },
      { RUNTIME_CAPABILITIES: "weak_point_analysis,flashcard_generation" },
    );
    const row = await s.finished();
    expect(row).toMatchObject({ status: "failed", errorCode: "INVALID_SCHEMA", attemptNo: 1 });
    expect(row.errorMessage).toMatch(/over the API's 262144-byte limit/);
    expect(s.rt.has("job.result_too_large", s.job.id)).toBeTruthy();
    // The quality loop ran (duplicate weak points are a soft finding), then one refusal, never a retry.
    expect(s.calls()).toHaveLength(4);
    await s.othersSucceeded();
  });

  it("a 413 from the API (a Runtime that believes in a larger limit) ends the attempt with the API's reason", async () => {
    const s = await scene((g) => [{ content: hugeAnswer(g) }], { others: 1 }, { RUNTIME_MAX_RESULT_BYTES: "2000000" });
    const row = await s.finished();
    expect(row).toMatchObject({ status: "failed", errorCode: "INVALID_SCHEMA", attemptNo: 1 });
    expect(row.errorMessage).toMatch(/the API refused the result \(413 PAYLOAD_TOO_LARGE\)/);
    expect(s.rt.has("job.result_refused", s.job.id)).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });
    expect(s.calls()).toHaveLength(4);
    const usage = await s.usage();
    expect(usage).toHaveLength(1);
    const reported = s.calls().reduce((n, c) => n + (c.usage?.prompt_tokens ?? 0), 0);
    expect(usage[0]).toMatchObject({ outcome: "INVALID_SCHEMA", promptTokens: reported });
  });
});

describe("the quality loop gives up: the failure carries what the model last sent", () => {
  const rejection = async (jobId: string) => (await getAdminJobDetail(jobId)).rejections;

  it("a quality-rule break every time → failed INVALID_SCHEMA, and the admin job page shows the output and the broken rule at that attempt", async () => {
    const s = await scene(() => [{ content: MISSING_KP }]);
    const row = await s.finished();
    expect(row).toMatchObject({ status: "failed", errorCode: "INVALID_SCHEMA", attemptNo: 1 });
    expect(s.calls()).toHaveLength(4);
    const [rej, ...more] = await rejection(s.job.id);
    expect(more).toEqual([]);
    expect(rej).toMatchObject({ attemptNo: 1, truncated: false });
    expect(JSON.parse(rej!.output)).toEqual(JSON.parse(MISSING_KP));
    expect(rej!.violations).toContainEqual(
      expect.objectContaining({ path: "weakPoints.0.knowledgePointId", rule: "knowledge_point_unknown" }),
    );
    await s.othersSucceeded();
  });

  it("an answer that is never JSON → the model's text is kept, rule not_json", async () => {
    const s = await scene(() => [{ content: "Sorry, here are your weak points: fractions." }]);
    expect(await s.finished()).toMatchObject({ status: "failed", errorCode: "INVALID_SCHEMA" });
    const [rej] = await rejection(s.job.id);
    expect(JSON.parse(rej!.output)).toBe("Sorry, here are your weak points: fractions.");
    expect(rej!.violations.map((v) => v.rule)).toEqual(["not_json"]);
  });

  it("an invalid answer with an escaped NUL is still reported (as its JSON text) and never costs the failure", async () => {
    const small = JSON.stringify({ weakPoints: "none", note: "a\u0000b" });
    const s = await scene(() => [{ content: small }]);
    expect(await s.finished()).toMatchObject({ status: "failed", errorCode: "INVALID_SCHEMA", attemptNo: 1 });
    const [a] = await rejection(s.job.id);
    expect(a).toMatchObject({ truncated: false, output: small });
    expect(a!.violations).toContainEqual(expect.objectContaining({ path: "weakPoints" }));
  });

  it("an invalid answer over 64 KB is reported cut at 64 KB and marked truncated, with its real size", async () => {
    const big = JSON.stringify({ weakPoints: "none", pad: "é".repeat(50_000) });
    const t = await scene(() => [{ content: big }]);
    const row = await t.finished();
    expect(row).toMatchObject({ status: "failed", errorCode: "INVALID_SCHEMA", attemptNo: 1 });
    expect(row.events.some((e) => e.errorCode === "JOB_TIMEOUT")).toBe(false);
    const [b] = await rejection(t.job.id);
    expect(b).toMatchObject({ truncated: true, outputBytes: Buffer.byteLength(big) });
    expect(big.startsWith(b!.output)).toBe(true);
    expect(Buffer.byteLength(b!.output)).toBeGreaterThan(64 * 1024 - 4);
  });
});
