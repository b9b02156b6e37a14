import { afterEach, describe, expect, it } from "vitest";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import { deepseekProvider } from "@/server/providers/deepseek";
import { AS_OF } from "../pipeline/fixtures";
import { tour } from "../job-types/tour";
import { contradictions } from "./contradictions";
import { startFakeOpenAI } from "./fake-openai-server";

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

/** The pipeline with the DeepSeek provider against the fake server answering `answers` in turn (the last repeats). */
async function run(c: ReturnType<typeof contradictions>[number], answers: unknown[]) {
  const server = await startFakeOpenAI(answers.map((a) => ({ content: JSON.stringify(a) })));
  close = server.close;
  const provider = deepseekProvider({ apiKey: "sk-test", baseURL: server.url, timeoutMs: 5_000 });
  const result = await runPipeline(
    { jobType: c.jobType, params: c.params, snapshot: tour(), asOf: AS_OF, locale: "zh-CN" },
    { provider, maxQualityLoops: 2 },
  );
  return { result, server };
}

describe.each(contradictions().map((c) => [c.name, c] as const))("a model that writes %s", (_name, c) => {
  it("is sent back with the finding, and the corrected answer is accepted", async () => {
    const { result, server } = await run(c, [c.bad, c.good]);
    expect(result).toMatchObject({ degraded: false, qualityLoops: 1, findings: [] });
    expect(result.output).toEqual(JSON.parse(JSON.stringify(c.good)));
    const retry = server.requests[1]!.body.messages as { role: string; content: string }[];
    expect(retry.at(-1)!.content).toContain("rejected by the quality check");
    expect(retry.at(-1)!.content).toContain(`[${c.rule}]`);
  });

  it("past the retries, is submitted degraded with the finding", async () => {
    const { result, server } = await run(c, [c.bad]);
    expect(server.requests).toHaveLength(3);
    expect(result).toMatchObject({ degraded: true, qualityLoops: 2 });
    expect(result.findings.join("\n")).toContain(`[${c.rule}]`);
  });
});
