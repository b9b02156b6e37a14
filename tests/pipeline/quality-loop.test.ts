import { describe, expect, it } from "vitest";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import type { QualityChecker } from "@/server/pipeline/quality-checks";
import type { ProgressReport } from "@/server/pipeline/stages";
import { PROMPT_VERSION } from "@/server/pipeline/prompts";
import { localProvider } from "@/server/providers/local";
import type { InferenceRequest, Provider } from "@/server/providers/types";
import { AS_OF, smallSnapshot } from "./fixtures";

/** Records every request, answering with the local analyzer (or `answer` when given). */
function recording(answer?: (req: InferenceRequest) => unknown) {
  const calls: InferenceRequest[] = [];
  const local = localProvider();
  const provider: Provider = {
    name: "recording",
    async infer(req) {
      calls.push(req);
      if (answer)
        return {
          output: answer(req),
          provider: "recording",
          model: "fake-1",
          usage: { promptTokens: 4, completionTokens: 6 },
        };
      return { ...(await local.infer(req)), usage: { promptTokens: 4, completionTokens: 6 } };
    },
  };
  return { provider, calls };
}

const job = { jobType: "weak_point_analysis", params: {}, snapshot: smallSnapshot(), asOf: AS_OF };

describe("the pipeline's stages and quality loop", () => {
  it("runs the four stages in order with their progress ranges and submits a non-degraded result", async () => {
    const reports: ProgressReport[] = [];
    const { provider } = recording();
    const result = await runPipeline(job, { provider, onProgress: (r) => void reports.push(r) });
    expect(reports.map((r) => [r.stage, r.progress])).toEqual([
      ["prompt_builder", 0],
      ["model_inference", 20],
      ["quality_check", 60],
      ["format_adapter", 80],
    ]);
    expect(result).toMatchObject({
      degraded: false,
      qualityLoops: 0,
      promptVersion: PROMPT_VERSION,
      outputSchemaVersion: "v1",
    });
  });

  it("goes back to prompt_builder with the findings when the checker rejects twice, then accepts", async () => {
    const { provider, calls } = recording();
    let reviews = 0;
    const qualityChecker: QualityChecker = () =>
      ++reviews <= 2 ? { ok: false, findings: [`evidence too thin (review ${reviews})`] } : { ok: true };
    const reports: ProgressReport[] = [];
    const result = await runPipeline(job, { provider, qualityChecker, onProgress: (r) => void reports.push(r) });
    expect(result).toMatchObject({ degraded: false, qualityLoops: 2, findings: [] });
    expect(calls).toHaveLength(3);
    expect(calls[0]!.prompt.user).not.toContain("rejected by the quality check");
    expect(calls[1]!.prompt.user).toContain("- evidence too thin (review 1)");
    expect(calls[2]!.prompt.user).toContain("- evidence too thin (review 2)");
    expect(result.usage).toMatchObject({ promptTokens: 12, completionTokens: 18 });
    expect(reports.filter((r) => r.stage === "prompt_builder")).toHaveLength(3);
  });

  it("submits the output marked degraded after 3 loops when the checker always rejects", async () => {
    const { provider, calls } = recording();
    const qualityChecker: QualityChecker = () => ({ ok: false, findings: ["never good enough"] });
    const result = await runPipeline(job, { provider, qualityChecker });
    expect(calls).toHaveLength(4); // the first call and 3 loops back
    expect(result).toMatchObject({ degraded: true, qualityLoops: 3, findings: ["never good enough"] });
    expect(result.output).toHaveProperty("weakPoints");
  });

  it("feeds the API's own findings back when the output breaks the v1 schema, and fails INVALID_SCHEMA if it never passes", async () => {
    const { provider, calls } = recording(() => ({ weakPoints: [{ knowledgePointId: "kp_nope" }] }));
    await expect(runPipeline(job, { provider })).rejects.toMatchObject({ code: "INVALID_SCHEMA" });
    expect(calls).toHaveLength(4);
    expect(calls[1]!.prompt.user).toContain("weakPoints.0.title");
  });

  it("the INVALID_SCHEMA failure carries the last rejected output and its violations, for the API to keep", async () => {
    const { provider } = recording((req) => ({ weakPoints: [{ knowledgePointId: `kp_nope_${req.attempt}` }] }));
    const failure = await runPipeline(job, { provider }).catch((e: unknown) => e);
    expect(failure).toMatchObject({
      code: "INVALID_SCHEMA",
      rejected: { output: { weakPoints: [{ knowledgePointId: "kp_nope_4" }] } },
    });
    const { violations } = (failure as { rejected: { violations: { path: string; rule: string }[] } }).rejected;
    expect(violations).toContainEqual(
      expect.objectContaining({ path: "weakPoints.0.title", rule: "schema.invalid_type" }),
    );
  });

  it("uses a later valid answer after an invalid one", async () => {
    const local = localProvider();
    const { provider, calls } = recording((req) => (req.attempt === 1 ? "not json at all" : null));
    const wrapped: Provider = {
      name: "wrapped",
      async infer(req) {
        const r = await provider.infer(req);
        return req.attempt === 1 ? r : local.infer(req);
      },
    };
    const result = await runPipeline(job, { provider: wrapped });
    expect(result).toMatchObject({ degraded: false, qualityLoops: 1, provider: "local" });
    expect(calls).toHaveLength(2);
  });

  it("refuses a malformed snapshot as INVALID_SNAPSHOT before calling the model", async () => {
    const { provider, calls } = recording();
    await expect(runPipeline({ ...job, snapshot: { version: 1 } }, { provider })).rejects.toMatchObject({
      code: "INVALID_SNAPSHOT",
    });
    await expect(runPipeline({ ...job, snapshot: null }, { provider })).rejects.toMatchObject({
      code: "INVALID_SNAPSHOT",
    });
    expect(calls).toHaveLength(0);
  });

  it("stops at the next stage boundary once its signal is aborted", async () => {
    const controller = new AbortController();
    const { provider, calls } = recording();
    const run = runPipeline(job, {
      provider,
      signal: controller.signal,
      onProgress: (r) => {
        if (r.stage === "model_inference") controller.abort(new Error("cancel requested"));
      },
    });
    await expect(run).rejects.toThrow("cancel requested");
    expect(calls).toHaveLength(0);
  });
});
