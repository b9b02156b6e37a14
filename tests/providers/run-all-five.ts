import type { SnapshotContent } from "@/server/job-types/fields";
import { paramsSchemas } from "@/server/jobs/schemas";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import { deepseekProvider } from "@/server/providers/deepseek";
import { analyse } from "@/server/providers/local";
import { startFakeOpenAI } from "./fake-openai-server";

/** The five analyses of the learner page's "Run all five", in its order, with their default parameters. */
export const FIVE = [
  ["learning_state_analysis", {}],
  ["weak_point_analysis", {}],
  ["next_action_planning", {}],
  ["quiz_generation", { count: 5, difficulty: "mixed", questionTypes: ["single_choice", "true_false"] }],
  ["flashcard_generation", { count: 10 }],
] as const;

export type CacheCount = { promptTokens: number; cacheHitTokens: number };
const share = (c: CacheCount) => (c.promptTokens ? c.cacheHitTokens / c.promptTokens : 0);

/**
 * Runs the five analyses of one snapshot through the real pipeline and the DeepSeek provider
 * against the fake DeepSeek server (which reports prompt-cache hits as DeepSeek does), then one
 * quality-loop retry (a first answer the quality check rejects, then a good one). Answers the
 * input tokens and cache hits of each, as the provider reported them.
 */
export async function runAllFive(snapshot: SnapshotContent, asOf: Date) {
  const fake = await startFakeOpenAI([]);
  try {
    const provider = deepseekProvider({ apiKey: "sk-bench", baseURL: fake.url, model: "deepseek-chat" });
    const jobs: (CacheCount & { jobType: string })[] = [];
    for (const [jobType, given] of FIVE) {
      const params = paramsSchemas[jobType].parse(given) as Record<string, unknown>;
      fake.script = [{ content: JSON.stringify(analyse(jobType, snapshot, params, asOf)) }];
      const r = await runPipeline({ jobType, params, snapshot, asOf }, { provider });
      jobs.push({ jobType, promptTokens: r.usage.promptTokens ?? 0, cacheHitTokens: r.usage.cacheHitTokens ?? 0 });
    }
    // A quiz whose first answer repeats a stem (a rule the quality check enforces), then a good one.
    const jobType = FIVE[3][0];
    const params = paramsSchemas[jobType].parse(FIVE[3][1]) as Record<string, unknown>;
    const good = analyse(jobType, snapshot, params, asOf) as { questions: { stem: string }[] };
    const repeated = { questions: good.questions.map((q) => ({ ...q, stem: good.questions[0]!.stem })) };
    fake.script = [{ content: JSON.stringify(repeated) }, { content: JSON.stringify(good) }];
    const before = fake.requests.length;
    const r = await runPipeline({ jobType, params, snapshot, asOf }, { provider });
    const calls = fake.requests.length - before;
    const first = jobs.reduce(
      (t, j) => ({
        promptTokens: t.promptTokens + j.promptTokens,
        cacheHitTokens: t.cacheHitTokens + j.cacheHitTokens,
      }),
      { promptTokens: 0, cacheHitTokens: 0 },
    );
    // The retry's own call: the last request, which repeats the rejected one's prompt plus the findings.
    const last = fake.requests.at(-1)!.usage!;
    const retry = { promptTokens: last.prompt_tokens!, cacheHitTokens: last.prompt_cache_hit_tokens! };
    return {
      jobs,
      runAllFive: { ...first, share: share(first) },
      retry: { ...retry, share: share(retry), calls, qualityLoops: r.qualityLoops },
    };
  } finally {
    await fake.close();
  }
}
