import { afterEach, describe, expect, it } from "vitest";
import { FAILURE_CODES } from "@/server/jobs/constants";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import { deepseekProvider } from "@/server/providers/deepseek";
import { analyse } from "@/server/providers/local";
import { AS_OF, smallSnapshot } from "../pipeline/fixtures";
import { closedPort, startFakeOpenAI, type Reply } from "./fake-openai-server";

const job = { jobType: "weak_point_analysis", params: {}, snapshot: smallSnapshot(), asOf: AS_OF };
const good = JSON.stringify(analyse("weak_point_analysis", smallSnapshot(), {}, AS_OF));
let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

async function fake(script: Reply[]) {
  const server = await startFakeOpenAI(script);
  close = server.close;
  return server;
}

async function failureOf(script: Reply[], opts: { timeoutMs?: number } = {}) {
  const server = await fake(script);
  const provider = deepseekProvider({ apiKey: "sk-test", baseURL: server.url, timeoutMs: opts.timeoutMs ?? 5_000 });
  const error = await runPipeline(job, { provider }).then(
    () => null,
    (e) => e,
  );
  return { error, server };
}

describe("deepseek provider against a fake OpenAI-compatible server", () => {
  it("sends a JSON-mode chat completion with the key and model, and returns the parsed answer", async () => {
    const server = await fake([{ content: good }]);
    const provider = deepseekProvider({ apiKey: "sk-platform", baseURL: server.url, model: "deepseek-chat" });
    const result = await runPipeline(job, { provider });
    expect(result).toMatchObject({ degraded: false, qualityLoops: 0, provider: "deepseek", model: "deepseek-chat" });
    expect(result.output).toEqual(JSON.parse(good));
    expect(result.usage).toMatchObject({
      provider: "deepseek",
      model: "deepseek-chat",
      completionTokens: 50,
      // The fake counts the prompt (about 4 characters a token) and, for a first prompt, no cache hit.
      cacheHitTokens: 0,
    });
    expect(result.usage.promptTokens).toBeGreaterThan(100);
    expect(result.usage.cacheMissTokens).toBe(result.usage.promptTokens);
    expect(result.usage.durationMs).toBeGreaterThanOrEqual(0);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req!.path).toBe("/v1/chat/completions");
    expect(req!.authorization).toBe("Bearer sk-platform");
    expect(req!.body).toMatchObject({ model: "deepseek-chat", response_format: { type: "json_object" } });
    const messages = req!.body.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(messages[0]!.content).toContain("JSON");
    expect(messages[1]!.content).toContain("kp_b");
  });

  it("asks for the job's language by name, and keeps the JSON's keys and enums English", async () => {
    const zhAnswer = JSON.stringify(analyse("weak_point_analysis", smallSnapshot(), {}, AS_OF, "zh-CN"));
    const server = await fake([{ content: zhAnswer }, { content: good }]);
    const provider = deepseekProvider({ apiKey: "k", baseURL: server.url });
    const zh = await runPipeline({ ...job, locale: "zh-CN" }, { provider });
    expect(zh.output).toEqual(JSON.parse(zhAnswer));
    await runPipeline(job, { provider });
    const system = (n: number) => (server.requests[n]!.body.messages as { content: string }[])[0]!.content;
    expect(system(0)).toContain("Write every text field");
    expect(system(0)).toContain("in Simplified Chinese (zh-CN)");
    expect(system(0)).toContain("Keep the JSON keys and the enum values");
    expect(system(0)).not.toContain("in English (en)");
    expect(system(1)).toContain("in English (en)");
    expect(system(1)).not.toContain("Chinese");
  });

  it("retries a malformed answer through the quality loop with the parse error in the prompt, then uses the good one", async () => {
    const server = await fake([{ content: '{"weakPoints": [' }, { content: good }]);
    const result = await runPipeline(job, { provider: deepseekProvider({ apiKey: "k", baseURL: server.url }) });
    expect(result).toMatchObject({ degraded: false, qualityLoops: 1 });
    expect(server.requests).toHaveLength(2);
    const retryPrompt = (server.requests[1]!.body.messages as { content: string }[])[1]!.content;
    expect(retryPrompt).toContain("the answer was not valid JSON");
  });

  it("fails INVALID_SCHEMA (not retried) when every answer stays unparseable or invalid", async () => {
    const { error, server } = await failureOf([
      { content: "Sure! Here is your analysis." },
      { content: '{"weakPoints": "none"}' },
    ]);
    expect(error).toMatchObject({ code: "INVALID_SCHEMA" });
    expect(FAILURE_CODES.INVALID_SCHEMA.retryable).toBe(false);
    expect(server.requests).toHaveLength(4);
  });

  const cases: [string, Reply[], keyof typeof FAILURE_CODES, boolean, { timeoutMs?: number }?][] = [
    ["a call that outlives its timeout", [{ hang: true }], "MODEL_TIMEOUT", true, { timeoutMs: 300 }],
    ["429", [{ status: 429, error: { message: "Rate limit reached" } }], "MODEL_RATE_LIMIT", true],
    ["500", [{ status: 500, error: { message: "internal" } }], "TEMPORARY_PROVIDER_ERROR", true],
    ["503", [{ status: 503, error: { message: "overloaded" } }], "TEMPORARY_PROVIDER_ERROR", true],
    [
      "401",
      [{ status: 401, error: { message: "Authentication Fails (no such user)", type: "authentication_error" } }],
      "INVALID_CREDENTIAL",
      false,
    ],
    ["403", [{ status: 403, error: { message: "forbidden" } }], "INVALID_CREDENTIAL", false],
    [
      "402 (insufficient balance)",
      [{ status: 402, error: { message: "Insufficient Balance" } }],
      "INVALID_CREDENTIAL",
      false,
    ],
    ["a connection reset", [{ reset: true }], "NETWORK_ERROR", true],
  ];
  for (const [name, script, code, retryable, opts] of cases) {
    it(`maps ${name} to ${code} (${retryable ? "retryable" : "not retryable"}) after one call`, async () => {
      const { error, server } = await failureOf(script, opts);
      expect(error).toMatchObject({ name: "JobFailure", code });
      expect(FAILURE_CODES[code].retryable).toBe(retryable);
      // No silent client retries: the job engine's backoff owns retrying.
      expect(server.requests).toHaveLength(1);
    });
  }

  it("maps connection refused to NETWORK_ERROR (retryable)", async () => {
    const provider = deepseekProvider({
      apiKey: "k",
      baseURL: `http://127.0.0.1:${await closedPort()}/v1`,
      timeoutMs: 5_000,
    });
    await expect(runPipeline(job, { provider })).rejects.toMatchObject({ code: "NETWORK_ERROR" });
    expect(FAILURE_CODES.NETWORK_ERROR.retryable).toBe(true);
  });

  it("fails INVALID_CREDENTIAL without calling when there is no key", async () => {
    await expect(runPipeline(job, { provider: deepseekProvider({ apiKey: undefined }) })).rejects.toMatchObject({
      code: "INVALID_CREDENTIAL",
    });
  });

  it("gives up the call with the caller's reason when the job is cancelled mid-call", async () => {
    const server = await fake([{ hang: true }]);
    const controller = new AbortController();
    const provider = deepseekProvider({ apiKey: "k", baseURL: server.url, timeoutMs: 60_000 });
    const run = runPipeline(job, {
      provider,
      signal: controller.signal,
      onProgress: (r) => {
        // Abort once the request has reached the server.
        if (r.stage !== "model_inference") return;
        const waitForRequest = setInterval(() => {
          if (!server.requests.length) return;
          clearInterval(waitForRequest);
          controller.abort(new Error("cancel requested"));
        }, 10);
      },
    });
    await expect(run).rejects.toThrow("cancel requested");
    expect(server.requests).toHaveLength(1);
  });
});
