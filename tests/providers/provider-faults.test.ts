import { afterEach, describe, expect, it } from "vitest";
import { FAILURE_CODES } from "@/server/jobs/constants";
import { usageOf } from "@/server/pipeline/errors";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import { deepseekProvider } from "@/server/providers/deepseek";
import { retryAfterMs } from "@/server/providers/http-failures";
import { analyse } from "@/server/providers/local";
import { JOB_TYPES, paramsSchemas, targetTypesOf, type JobTypeName } from "@/server/job-types";
import { AS_OF, materialSnapshot, smallSnapshot } from "../pipeline/fixtures";
import { errorPage, startFakeOpenAI, type Reply } from "./fake-openai-server";

const job = { jobType: "weak_point_analysis", params: {}, snapshot: smallSnapshot(), asOf: AS_OF };
const good = JSON.stringify(analyse("weak_point_analysis", smallSnapshot(), {}, AS_OF));
let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

/** A job of `type` on smallSnapshot (its material for a type that runs on materials), with default params. */
function jobOf(type: JobTypeName) {
  const snapshot = targetTypesOf(type).includes("user") ? smallSnapshot() : materialSnapshot();
  return { jobType: type, params: paramsSchemas[type].parse({}) as Record<string, unknown>, snapshot, asOf: AS_OF };
}

async function run(
  script: Reply[],
  opts: { timeoutMs?: number; maxResponseBytes?: number } = {},
  input: { jobType: string; params: Record<string, unknown>; snapshot: unknown; asOf: Date } = job,
) {
  const server = await startFakeOpenAI(script);
  close = server.close;
  const provider = deepseekProvider({
    apiKey: "k",
    baseURL: server.url,
    timeoutMs: opts.timeoutMs ?? 5_000,
    maxResponseBytes: opts.maxResponseBytes,
  });
  const started = Date.now();
  const outcome = await runPipeline(input as typeof job, { provider }).then(
    (result) => ({ result, error: null }),
    (error: unknown) => ({ result: null, error: error as { code?: string; message: string; retryAfterMs?: number } }),
  );
  return { ...outcome, server, elapsed: Date.now() - started };
}

describe("deepseek provider: every misbehaviour of the provider classified, bounded, never the bug path", () => {
  const cases: [string, Reply[], keyof typeof FAILURE_CODES, { timeoutMs?: number; maxResponseBytes?: number }?][] = [
    ["a stalled body (headers sent, then nothing)", [{ stallBody: true }], "MODEL_TIMEOUT", { timeoutMs: 400 }],
    ["a reset mid-body", [{ resetMidBody: true }], "NETWORK_ERROR"],
    [
      "a 200 with an HTML page",
      [{ raw: "<!doctype html><html><body>Bad gateway</body></html>", contentType: "text/html" }],
      "TEMPORARY_PROVIDER_ERROR",
    ],
    [
      "a 200 with truncated JSON",
      [{ raw: '{"id":"chatcmpl-1","choices":[{"message":{"content":"{' }],
      "TEMPORARY_PROVIDER_ERROR",
    ],
    [
      "a 200 with choices: []",
      [
        {
          raw: JSON.stringify({
            id: "x",
            model: "deepseek-chat",
            choices: [],
            usage: { prompt_tokens: 7, completion_tokens: 0 },
          }),
        },
      ],
      "TEMPORARY_PROVIDER_ERROR",
    ],
    ["a 200 that is JSON but no object", [{ raw: "[1,2]" }], "TEMPORARY_PROVIDER_ERROR"],
    [
      "a 502 with an HTML page",
      [{ status: 502, raw: "<html>502 Bad Gateway</html>", contentType: "text/html" }],
      "TEMPORARY_PROVIDER_ERROR",
    ],
    [
      "a 400",
      [{ status: 400, error: { message: "This model's maximum context length is 65536 tokens" } }],
      "INVALID_SCHEMA",
    ],
    [
      "an answer over the size cap",
      [{ content: good, padBytes: 200_000 }],
      "INVALID_SCHEMA",
      { maxResponseBytes: 64 * 1024 },
    ],
  ];
  for (const [name, script, code, opts] of cases) {
    it(`maps ${name} to ${code} after one call, with the call's duration in its usage`, async () => {
      const { error, server } = await run(script, opts);
      expect(error).toMatchObject({ name: "JobFailure", code });
      expect(error!.message).not.toMatch(/TypeError|Cannot read/);
      expect(server.requests).toHaveLength(1);
      expect(usageOf(error)).toMatchObject({ provider: "deepseek", durationMs: expect.any(Number) });
    });
  }

  const PROXY_503: [string, Reply][] = [
    [
      "a 2 MiB HTML page",
      { status: 503, raw: errorPage(2 * 1024 * 1024), contentType: "text/html", headers: { "retry-after": "10" } },
    ],
    [
      "a declared 1 GiB body, a little sent, then held",
      { status: 503, declaredBytes: 1024 ** 3, then: "hold", headers: { "retry-after": "10" } },
    ],
    [
      "a declared 1 GiB body, a little sent, then closed",
      { status: 503, declaredBytes: 1024 ** 3, then: "close", headers: { "retry-after": "10" } },
    ],
  ];
  for (const [name, reply] of PROXY_503) {
    it(`classifies a 503 with ${name} by its status: TEMPORARY_PROVIDER_ERROR with its Retry-After, never the size cap`, async () => {
      const { error, server } = await run([reply]);
      expect(error).toMatchObject({ name: "JobFailure", code: "TEMPORARY_PROVIDER_ERROR", retryAfterMs: 10_000 });
      expect(error!.message).toContain("DeepSeek answered 503: <!doctype html>");
      expect(error!.message).not.toContain("cap");
      expect(server.requests).toHaveLength(1);
    });
  }

  for (const type of JOB_TYPES) {
    it(`${type}: a 503 page, a 500 and a stalled body are classified; a good answer is the job's output`, async () => {
      const input = jobOf(type);
      const good = analyse(type, input.snapshot, input.params as never, AS_OF);
      for (const [reply, code] of [
        [PROXY_503[0]![1], "TEMPORARY_PROVIDER_ERROR"],
        [{ status: 500, error: { message: "boom" } }, "TEMPORARY_PROVIDER_ERROR"],
        [{ stallBody: true }, "MODEL_TIMEOUT"],
      ] as [Reply, string][]) {
        const failed = await run([reply], { timeoutMs: 1_500 }, input);
        expect(failed.error).toMatchObject({ code });
        await close?.();
        close = null;
      }
      const { result, error } = await run([{ content: JSON.stringify(good) }], {}, input);
      expect(error).toBeNull();
      expect(result!.output).toEqual(good);
    });
  }

  it("bounds a stalled body by the one per-call deadline, not the job's timeout", async () => {
    const { error, elapsed } = await run([{ stallBody: true }], { timeoutMs: 300 });
    expect(error).toMatchObject({ code: "MODEL_TIMEOUT" });
    expect(error!.message).toContain("body");
    expect(elapsed).toBeLessThan(3_000);
  });

  it("stops reading an oversized answer at the cap instead of reading it in full", async () => {
    const { error } = await run([{ content: good, padBytes: 5 * 1024 * 1024 }], { maxResponseBytes: 64 * 1024 });
    expect(error).toMatchObject({ code: "INVALID_SCHEMA" });
    expect(error!.message).toContain("65536-byte cap");
  });

  it("carries Retry-After of a 429 (seconds) and a 503 (HTTP date) on the failure", async () => {
    const limited = await run([{ status: 429, error: { message: "slow down" }, headers: { "retry-after": "20" } }]);
    expect(limited.error).toMatchObject({ code: "MODEL_RATE_LIMIT", retryAfterMs: 20_000 });
    await close?.();
    close = null;
    const later = new Date(Date.now() + 30_000).toUTCString();
    const busy = await run([{ status: 503, error: { message: "busy" }, headers: { "retry-after": later } }]);
    expect(busy.error).toMatchObject({ code: "TEMPORARY_PROVIDER_ERROR" });
    expect(busy.error!.retryAfterMs).toBeGreaterThan(25_000);
    expect(busy.error!.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it("reads Retry-After defensively", () => {
    const h = (v: Record<string, string>) => new Headers(v);
    expect(retryAfterMs(h({}))).toBeUndefined();
    expect(retryAfterMs(h({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(h({ "retry-after": "1.5" }))).toBe(1500);
    expect(retryAfterMs(h({ "retry-after": "99999999" }))).toBe(86_400_000);
    expect(retryAfterMs(h({ "retry-after-ms": "250" }))).toBe(250);
    expect(retryAfterMs(h({ "retry-after": new Date(0).toUTCString() }))).toBe(0);
  });

  it("keeps odd usage out: string, negative and missing counts never reach the result, a long model name is clipped", async () => {
    const { result } = await run([
      {
        content: good,
        usage: { prompt_tokens: "12", completion_tokens: -5, total_tokens: "x" },
        model: "m".repeat(300),
      },
    ]);
    expect(result!.usage).toMatchObject({ provider: "deepseek", promptTokens: 12, completionTokens: 0 });
    expect(result!.model).toHaveLength(128);
    const { result: none } = await (async () => {
      await close?.();
      close = null;
      return run([{ content: good, usage: null }]);
    })();
    expect(none!.usage).toMatchObject({ promptTokens: 0, completionTokens: 0 });
  });

  it("sums the usage of every call of the quality loop, and a failure after a loop carries the loop's tokens", async () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 50,
      prompt_cache_hit_tokens: 64,
      prompt_cache_miss_tokens: 36,
    };
    const ok = await run([
      { content: "not json", usage },
      { content: good, usage },
    ]);
    expect(ok.result!.usage).toMatchObject({
      promptTokens: 200,
      completionTokens: 100,
      cacheHitTokens: 128,
      cacheMissTokens: 72,
    });
    await close?.();
    close = null;
    const failed = await run([
      { content: "not json", usage },
      { status: 500, error: { message: "boom" } },
    ]);
    expect(failed.error).toMatchObject({ code: "TEMPORARY_PROVIDER_ERROR" });
    expect(usageOf(failed.error)).toMatchObject({ promptTokens: 100, completionTokens: 50 });
  });
});
