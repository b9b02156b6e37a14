import { afterEach, describe, expect, it } from "vitest";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import type { promptFacts } from "@/server/pipeline/prompt-facts";
import { deepseekProvider } from "@/server/providers/deepseek";
import { AS_OF } from "../pipeline/fixtures";
import { tour } from "../job-types/tour";
import { startFakeOpenAI } from "./fake-openai-server";

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

type Facts = ReturnType<typeof promptFacts>;

/** The facts block of the prompt a request carries, read back as the model reads it. */
function factsOf(body: Record<string, unknown>): Facts {
  const user = (body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content;
  const line = user.split("\n").find((l) => l.startsWith("Facts computed from the snapshot"))!;
  return JSON.parse(line.slice(line.indexOf("{"))) as Facts;
}

/**
 * A plain model's learning state: it copies the figures the prompt gives, calls a point strong
 * when its mastery is high and nothing of it is forgotten, a risk when it is low or forgotten,
 * and quotes each point's mastery and answers from the facts. Nothing is computed by the
 * project's formula here: only the prompt's facts are read.
 */
function plainAnswer(f: Facts) {
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const forgotten = (k: Facts["knowledgePoints"][number]) =>
    ("forgottenAtLatestReview" in k ? k.forgottenAtLatestReview! : 0) > 0;
  const practised = f.knowledgePoints.filter((k) => k.attempts > 0 || ("reviews" in k && k.reviews! > 0));
  const strong = practised.filter((k) => k.mastery >= 0.8 && !forgotten(k));
  const risky = f.knowledgePoints.filter((k) => !strong.includes(k) && (k.mastery < 0.5 || forgotten(k)));
  const best = [...strong].sort((a, b) => b.mastery - a.mastery)[0];
  return {
    summary: `共作答 ${f.answers} 次，总体掌握度 ${pct(f.overallMastery)}。`,
    overallMastery: f.overallMastery,
    engagementLevel: "medium",
    strongestKnowledgePointId: best?.knowledgePointId ?? null,
    strengths: strong.map((k) => ({
      knowledgePointId: k.knowledgePointId,
      text: `掌握度 ${pct(k.mastery)}，共作答 ${k.attempts} 次`,
    })),
    risks: risky.map((k) => ({ knowledgePointId: k.knowledgePointId, text: `掌握度 ${pct(k.mastery)}` })),
    knowledgePoints: f.knowledgePoints.map((k) => ({
      knowledgePointId: k.knowledgePointId,
      title: k.knowledgePointId,
      mastery: k.mastery,
      confidence: k.confidence,
      attempts: k.attempts,
    })),
  };
}

describe("the learning-state prompt gives the model the facts", () => {
  it("a plain answer quoting the given facts passes the quality stage in one call", async () => {
    const server = await startFakeOpenAI([], {
      route: (body) => ({ content: JSON.stringify(plainAnswer(factsOf(body))) }),
    });
    close = server.close;
    const provider = deepseekProvider({ apiKey: "sk-test", baseURL: server.url, timeoutMs: 5_000 });
    const result = await runPipeline(
      { jobType: "learning_state_analysis", params: {}, snapshot: tour(), asOf: AS_OF, locale: "zh-CN" },
      { provider, maxQualityLoops: 3 },
    );
    expect(result).toMatchObject({ degraded: false, qualityLoops: 0, findings: [] });
    expect(server.requests).toHaveLength(1);
    // The prompt asks to copy the figures, not to compute them.
    const user = JSON.stringify(server.requests[0]!.body.messages);
    expect(user).toContain("never recompute them");
    expect(user).not.toContain("recent answers count more");
  });

  it("a plain answer that recomputes mastery its own way is still held to the facts", async () => {
    const server = await startFakeOpenAI([], {
      route: (body) => {
        const a = plainAnswer(factsOf(body));
        // Its own formula: the plain share of right answers, ignoring the reviews (一、电流 reads 100 %).
        a.knowledgePoints = a.knowledgePoints.map((k) => (k.knowledgePointId === "k1" ? { ...k, mastery: 1 } : k));
        return { content: JSON.stringify(a) };
      },
    });
    close = server.close;
    const provider = deepseekProvider({ apiKey: "sk-test", baseURL: server.url, timeoutMs: 5_000 });
    const result = await runPipeline(
      { jobType: "learning_state_analysis", params: {}, snapshot: tour(), asOf: AS_OF, locale: "zh-CN" },
      { provider, maxQualityLoops: 1 },
    );
    expect(result.degraded).toBe(true);
    expect(result.findings.join("\n")).toContain("[mastery_band]");
  });
});
