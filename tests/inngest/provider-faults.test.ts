import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { advanceClock, now, resetClock } from "@/server/clock";
import { getAdminJobDetail } from "@/server/admin/job-detail";
import { executeJob, type SleepUntil, type Step } from "@/server/worker/execute";
import { JOB_TYPES } from "@/server/job-types";
import { errorPage, type Reply } from "../providers/fake-openai-server";
import { faultScene, gaps } from "../runtime/faults";
import { jobRow } from "../helpers/factories";

const ENV = {
  INNGEST_WORKER_JOB_TYPES: "*",
  INNGEST_WORKER_PROVIDER: "deepseek",
  INNGEST_WORKER_ID: "inngest-worker",
  DEEPSEEK_API_KEY: "sk-platform",
  // Generous for a loaded CI machine; the deadline's own bound is tested in tests/providers.
  DEEPSEEK_TIMEOUT_MS: "1500",
  JOB_BACKOFF_BASE_MS: "200",
  JOB_BACKOFF_CAP_MS: "2000",
};
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(() => void Object.assign(process.env, ENV));
afterEach(async () => {
  resetClock();
  delete process.env.DEEPSEEK_MAX_RESPONSE_BYTES;
  while (cleanups.length) await cleanups.pop()!();
});
afterAll(() => {
  for (const k of [...Object.keys(ENV), "DEEPSEEK_BASE_URL"]) delete process.env[k];
});

/**
 * The worker as Inngest runs it, minus the server: every step's output goes through JSON (as
 * Inngest stores it) and is kept for inspection; a sleep until runAfter moves the clock there.
 */
function harness() {
  const outputs: { id: string; json: string }[] = [];
  /** Per retry: runAfter as the API set it, from the moment the failure was reported (the backoff). */
  const waits: number[] = [];
  let sleeps = 0;
  const step: Step = async (id, fn) => {
    const before = now().getTime();
    const out = await fn();
    const json = JSON.stringify(out) ?? "null";
    outputs.push({ id, json });
    const runAfter = id === "report-failure" ? (out as { runAfter?: string | null }).runAfter : null;
    if (runAfter) waits.push(Date.parse(runAfter) - before);
    return JSON.parse(json);
  };
  const sleepUntil: SleepUntil = async (_id, until) => {
    sleeps++;
    advanceClock(Math.max(0, until.getTime() - now().getTime()) + 1);
  };
  return { outputs, waits, step, sleepUntil, sleeps: () => sleeps };
}

async function scene(script: (good: string) => Reply[], opts: Parameters<typeof faultScene>[1] = {}) {
  const s = await faultScene(script, opts);
  cleanups.push(() => s.fake.close());
  process.env.DEEPSEEK_BASE_URL = s.fake.url;
  const h = harness();
  const others = s.others.map((o) => executeJob(o.id, harness().step, harness().sleepUntil));
  const outcome = await executeJob(s.job.id, h.step, h.sleepUntil);
  const otherOutcomes = await Promise.all(others);
  return { ...s, ...h, outcome, otherOutcomes };
}

const error = (status: number, message = "error", headers?: Record<string, string>): Reply => ({
  status,
  error: { message },
  ...(headers ? { headers } : {}),
});

const MISSING_KP = JSON.stringify({
  weakPoints: [{ knowledgePointId: "kp_nowhere", title: "X", severity: "high", evidence: ["e"], suggestedReview: "r" }],
});

type Case = {
  name: string;
  script: (good: string) => Reply[];
  status: string;
  codes: string[];
  calls: number;
  minSleeps?: number[];
  maxSleeps?: number[];
  maxRetryCount?: number;
  env?: Record<string, string>;
};
const proxy503 = { status: 503, headers: { "retry-after": "10" } } as const;
const CASES: Case[] = [
  { name: "401", script: () => [error(401)], status: "failed", codes: ["INVALID_CREDENTIAL"], calls: 1 },
  {
    name: "400",
    script: () => [error(400, "context too long")],
    status: "failed",
    codes: ["INVALID_SCHEMA"],
    calls: 1,
  },
  {
    name: "500 then 502, then an answer",
    script: (g) => [error(500), error(502), { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR", "TEMPORARY_PROVIDER_ERROR"],
    calls: 3,
    minSleeps: [100, 200],
    maxSleeps: [200, 400],
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
    name: "odd usage",
    script: (g) => [{ content: g, usage: { prompt_tokens: "9", completion_tokens: "x" } }],
    status: "succeeded",
    codes: [],
    calls: 1,
  },
  {
    name: "429 with Retry-After: 1",
    script: (g) => [error(429, "slow down", { "retry-after": "1" }), { content: g }],
    status: "succeeded",
    codes: ["MODEL_RATE_LIMIT"],
    calls: 2,
    minSleeps: [1000],
    maxSleeps: [1000],
  },
  // A proxy's 503 page: the status decides (retried, Retry-After kept), never the page's size.
  {
    name: "503 with Retry-After: 10 and a 2 MiB HTML page (over the 1 MiB answer cap)",
    script: (g) => [{ ...proxy503, raw: errorPage(2 * 1024 * 1024), contentType: "text/html" }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
    minSleeps: [2000],
    maxSleeps: [2000],
  },
  {
    name: "503 with Retry-After: 10 declaring a 1 GiB body, a little sent, then held",
    script: (g) => [{ ...proxy503, declaredBytes: 1024 ** 3, then: "hold" }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
    minSleeps: [2000],
    maxSleeps: [2000],
  },
  {
    name: "429 with Retry-After: 60 (capped at 2 s)",
    script: (g) => [error(429, "slow down", { "retry-after": "60" }), { content: g }],
    status: "succeeded",
    codes: ["MODEL_RATE_LIMIT"],
    calls: 2,
    minSleeps: [2000],
    maxSleeps: [2000],
  },
  {
    name: "503 always",
    script: () => [error(503)],
    status: "failed",
    codes: Array(3).fill("TEMPORARY_PROVIDER_ERROR"),
    calls: 3,
    minSleeps: [100, 200],
    maxSleeps: [200, 400],
    maxRetryCount: 2,
  },
  {
    name: "a hang before headers",
    script: (g) => [{ hang: true }, { content: g }],
    status: "succeeded",
    codes: ["MODEL_TIMEOUT"],
    calls: 2,
    minSleeps: [100],
    maxSleeps: [200],
  },
  {
    name: "a stalled body",
    script: (g) => [{ stallBody: true }, { content: g }],
    status: "succeeded",
    codes: ["MODEL_TIMEOUT"],
    calls: 2,
    minSleeps: [100],
    maxSleeps: [200],
  },
  {
    name: "a reset before headers",
    script: (g) => [{ reset: true }, { content: g }],
    status: "succeeded",
    codes: ["NETWORK_ERROR"],
    calls: 2,
  },
  {
    name: "a reset mid-body",
    script: (g) => [{ resetMidBody: true }, { content: g }],
    status: "succeeded",
    codes: ["NETWORK_ERROR"],
    calls: 2,
  },
  {
    name: "a 200 with HTML",
    script: (g) => [{ raw: "<html>oops</html>", contentType: "text/html" }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
  },
  {
    name: "truncated JSON",
    script: (g) => [{ raw: '{"choices":[{"mess' }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
  },
  {
    name: "choices: []",
    script: (g) => [{ raw: '{"choices":[]}' }, { content: g }],
    status: "succeeded",
    codes: ["TEMPORARY_PROVIDER_ERROR"],
    calls: 2,
  },
  {
    name: "schema-invalid always",
    script: () => [{ content: '{"weakPoints": 3}' }],
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
];

describe("the in-app Inngest worker against a misbehaving provider", () => {
  for (const c of CASES) {
    it(`${c.name} → ${c.status}, codes [${c.codes.join(", ")}], ${c.calls} call(s); other jobs keep flowing`, async () => {
      Object.assign(process.env, ENV, c.env);
      const s = await scene(c.script, { maxRetryCount: c.maxRetryCount });
      expect(s.outcome.outcome).toBe(c.status);
      const row = await jobRow(s.job.id);
      expect(row.status).toBe(c.status);
      expect(await s.codes()).toEqual(c.codes);
      expect(s.calls()).toHaveLength(c.calls);
      // Each retry waited until the job's runAfter: the backoff, raised to Retry-After, within the cap.
      // (measured from a moment after the failure was recorded, hence a little slack below).
      expect(s.sleeps()).toBe(row.retryCount);
      expect(s.waits).toHaveLength(row.retryCount);
      (c.minSleeps ?? []).forEach((min, i) => expect(s.waits[i]).toBeGreaterThanOrEqual(min));
      // (the upper bound allows for the time the report itself took on a loaded machine)
      (c.maxSleeps ?? []).forEach((max, i) => expect(s.waits[i]).toBeLessThanOrEqual(max + 250));
      expect(gaps(s.calls()).every((g) => g >= 0)).toBe(true);
      const usage = await s.usage();
      expect(usage.map((u) => u.attemptNo)).toEqual(Array.from({ length: row.attemptNo }, (_, i) => i + 1));
      expect(usage.map((u) => u.outcome).filter((o) => o !== "succeeded")).toEqual(c.codes);
      expect(s.otherOutcomes.map((o) => o.outcome)).toEqual(["succeeded", "succeeded", "succeeded"]);
    });
  }

  for (const jobType of JOB_TYPES) {
    it(`${jobType}: a 503 with a 2 MiB page, then a 500, then an answer → succeeded on the third attempt`, async () => {
      const page = { ...proxy503, raw: errorPage(2 * 1024 * 1024), contentType: "text/html" };
      const s = await scene((g) => [page, error(500), { content: g }], { jobType, others: 0 });
      expect(s.outcome).toMatchObject({ outcome: "succeeded", attempts: 3 });
      const row = await jobRow(s.job.id);
      expect(row.jobType).toBe(jobType);
      expect(await s.codes()).toEqual(["TEMPORARY_PROVIDER_ERROR", "TEMPORARY_PROVIDER_ERROR"]);
      expect(row.result).toMatchObject({ attemptNo: 3, modelProvider: "deepseek", output: JSON.parse(s.good) });
    });
  }

  it("no step output ever contains the learner's key, and the key still reaches the provider", async () => {
    const key = "sk-learner-SECRET-4242";
    const s = await scene((g) => [error(429, "slow down", { "retry-after": "1" }), { content: g }], { userKey: key });
    expect(s.outcome).toMatchObject({ outcome: "succeeded", attempts: 2 });
    expect(s.calls().map((c) => c.authorization)).toEqual([`Bearer ${key}`, `Bearer ${key}`]);
    const ids = s.outputs.map((o) => o.id);
    expect(ids).toContain("lock-job");
    expect(ids).toContain("model-inference");
    expect(ids).toContain("report-failure");
    for (const o of s.outputs) expect(o.json, `step ${o.id}`).not.toContain("SECRET-4242");
    // The lease's model settings are still there, minus the key.
    const lock = JSON.parse(s.outputs.find((o) => o.id === "lock-job")!.json);
    expect(lock.job.model).toEqual({ provider: "deepseek", name: "deepseek-chat", apiKeyMode: "user_deepseek_key" });
  });
});

describe("the worker's quality loop gives up: the failure carries what the model last sent", () => {
  it("a quality-rule break every time → failed INVALID_SCHEMA, and the admin job page shows the output and the broken rule at that attempt", async () => {
    const s = await scene(() => [{ content: MISSING_KP }]);
    expect(s.outcome).toMatchObject({ outcome: "failed", errorCode: "INVALID_SCHEMA" });
    const { rejections } = await getAdminJobDetail(s.job.id);
    expect(rejections).toHaveLength(1);
    expect(rejections[0]).toMatchObject({ attemptNo: 1, truncated: false });
    expect(JSON.parse(rejections[0]!.output)).toEqual(JSON.parse(MISSING_KP));
    expect(rejections[0]!.violations).toContainEqual(
      expect.objectContaining({ path: "weakPoints.0.knowledgePointId", rule: "knowledge_point_unknown" }),
    );
  });

  it("an invalid answer with a NUL, over 64 KB: kept cut and marked truncated, the NUL stored as a stand-in, never a bug path", async () => {
    const big = JSON.stringify({ weakPoints: [{ knowledgePointId: "k\u0000", title: "é".repeat(40_000) }] });
    const s = await scene(() => [{ content: big }]);
    expect(s.outcome).toMatchObject({ outcome: "failed", errorCode: "INVALID_SCHEMA" });
    const [rej] = (await getAdminJobDetail(s.job.id)).rejections;
    expect(rej).toMatchObject({ attemptNo: 1, truncated: true, outputBytes: Buffer.byteLength(big) });
    expect(big.startsWith(rej!.output)).toBe(true);
    expect(rej!.violations.length).toBeGreaterThan(0);
  });
});
