import { describe, expect, it } from "vitest";
import { ApiError } from "@/runtime/api-client";
import { cleanUsage, refusalNeedsFail, resultBody } from "@/runtime/submit";
import type { PipelineResult } from "@/server/pipeline/run-pipeline";

const result = (over: Partial<PipelineResult> = {}): PipelineResult => ({
  output: { weakPoints: [] },
  outputSchemaVersion: "v1",
  degraded: false,
  qualityLoops: 0,
  findings: [],
  promptVersion: "p1",
  provider: "deepseek",
  model: "deepseek-chat",
  usage: { provider: "deepseek", model: "deepseek-chat", promptTokens: 1, completionTokens: 2, durationMs: 3 },
  latencyMs: 10,
  ...over,
});

describe("the reference Runtime's checks before it submits a result", () => {
  it("clips metadata to the published lengths instead of losing a good answer", () => {
    const out = resultBody(
      1,
      result({ model: "m".repeat(300), provider: "p".repeat(100), usage: { model: "m".repeat(300), durationMs: 1.7 } }),
      "rt-1",
      262_144,
    );
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.body.modelName).toHaveLength(128);
    expect(out.body.modelProvider).toHaveLength(64);
    expect(out.body.usage).toEqual({ model: "m".repeat(128), durationMs: 2 });
  });

  it("refuses, with the reason, a body over the API's limit", () => {
    const big = result({ output: { weakPoints: [{ evidence: ["x".repeat(300_000)] }] } });
    const out = resultBody(1, big, "rt-1", 262_144);
    expect(out).toMatchObject({ ok: false, reason: expect.stringMatching(/over the API's 262144-byte limit/) });
  });

  it("drops usage the contract would refuse rather than lose the report", () => {
    expect(cleanUsage({ promptTokens: -1 })).toBeUndefined();
    expect(cleanUsage({ promptTokens: 1.5 })).toBeUndefined();
    expect(cleanUsage(undefined)).toBeUndefined();
    expect(cleanUsage({ provider: "local", promptTokens: 0, completionTokens: 0, durationMs: 5 })).toEqual({
      provider: "local",
      promptTokens: 0,
      completionTokens: 0,
      durationMs: 5,
    });
  });

  it("ends the attempt itself only when the API left it open", () => {
    const e = (status: number | null, code: string) => new ApiError(status, code, "m");
    expect(refusalNeedsFail(e(413, "PAYLOAD_TOO_LARGE"))).toBe(true);
    expect(refusalNeedsFail(e(400, "INVALID_REQUEST"))).toBe(true);
    expect(refusalNeedsFail(e(400, "MALFORMED_JSON"))).toBe(true);
    expect(refusalNeedsFail(e(415, "UNSUPPORTED_MEDIA_TYPE"))).toBe(true);
    // Already ended by the API, or not ours any more.
    for (const [s, c] of [
      [422, "INVALID_SCHEMA"],
      [409, "JOB_CANCELLED"],
      [409, "LOCK_LOST"],
      [409, "RESULT_ALREADY_EXISTS"],
      [404, "JOB_NOT_FOUND"],
      [401, "UNAUTHORIZED"],
    ] as const)
      expect(refusalNeedsFail(e(s, c)), c).toBe(false);
    // Transient: the delivery loop keeps trying; the lease decides.
    expect(refusalNeedsFail(e(503, "UNAVAILABLE"))).toBe(false);
    expect(refusalNeedsFail(e(null, "UNREACHABLE"))).toBe(false);
  });
});
