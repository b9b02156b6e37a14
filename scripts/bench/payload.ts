/** What a bench Runtime hands back: a minimal valid learning-state output. */
export const output = {
  summary: "ok",
  overallMastery: 0.5,
  engagementLevel: "medium",
  strengths: [],
  risks: [],
  knowledgePoints: [],
};

/** A minimal valid output per job type the bench runs (weak_point_analysis: the busy Runtimes' own type in the pickup-under-load section). */
export function outputFor(jobType: string): unknown {
  return jobType === "weak_point_analysis" ? { weakPoints: [] } : output;
}

/** Sent with every result, as real Runtimes do (docs/contract.md#the-runtime-protocol result.usage), so the usage row and the token budget are part of the measured cycle. */
export const usage = {
  provider: "deepseek",
  model: "deepseek-chat",
  promptTokens: 1200,
  completionTokens: 300,
  durationMs: 800,
};
