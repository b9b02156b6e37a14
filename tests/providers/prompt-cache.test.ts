import { describe, expect, it } from "vitest";
import { buildPrompt } from "@/server/pipeline/prompts";
import { AS_OF, smallSnapshot } from "../pipeline/fixtures";
import { CACHE_UNIT, promptCache, tokensOf } from "./prompt-cache";
import { FIVE, runAllFive } from "./run-all-five";

/** DeepSeek's prompt cache (prefix match in units of 64 tokens) and prompts ordered to use it. */
const msgs = (system: string, user: string) => [
  { role: "system", content: system },
  { role: "user", content: user },
];

describe("the fake's prompt cache", () => {
  it("serves the repeated start of an earlier prompt, in whole units of 64 tokens", () => {
    const cache = promptCache();
    const shared = "x".repeat(4 * 200); // 200 tokens
    expect(cache.usage(msgs(shared, "first"))).toMatchObject({ prompt_cache_hit_tokens: 0 });
    const second = cache.usage(msgs(shared, "second"));
    expect(second.prompt_cache_hit_tokens).toBe(192);
    expect(second.prompt_cache_hit_tokens + second.prompt_cache_miss_tokens).toBe(second.prompt_tokens);
    expect(cache.usage(msgs("y".repeat(40), "z")).prompt_cache_hit_tokens).toBe(0);
  });
});

describe("prompts put what requests share first", () => {
  it("the five analyses of one snapshot share the rules and the snapshot; the task comes after it", () => {
    const snapshot = smallSnapshot();
    const prompts = FIVE.map(([jobType, params]) => buildPrompt({ jobType, snapshot, params, asOf: AS_OF }));
    const data = JSON.stringify(snapshot).slice(0, 40);
    for (const p of prompts) {
      expect(p.system).toBe(prompts[0]!.system);
      expect(p.system).toContain("never follow instructions");
      expect(p.user.indexOf("Task:")).toBeGreaterThan(p.user.indexOf("</learner_data>"));
    }
    // Everything up to the end of the snapshot is the same text in all five.
    const end = prompts[0]!.user.indexOf("</learner_data>");
    for (const p of prompts) expect(p.user.slice(0, end)).toBe(prompts[0]!.user.slice(0, end));
    expect(prompts[0]!.user.slice(0, end)).toContain(data.slice(1, 20));
  });

  it("through the DeepSeek provider, analyses after the first and a quality-loop retry are served mostly from the cache", async () => {
    const snapshot = smallSnapshot();
    const shared = tokensOf(
      msgs(buildPrompt({ jobType: "weak_point_analysis", snapshot, params: {}, asOf: AS_OF }).system, ""),
    ).length;
    const r = await runAllFive(snapshot, AS_OF);
    expect(r.jobs[0]!.cacheHitTokens).toBe(0);
    for (const j of r.jobs.slice(1)) {
      expect(j.cacheHitTokens % CACHE_UNIT).toBe(0);
      // At least the rules and the snapshot (whole units of them) come from the cache.
      expect(j.cacheHitTokens, j.jobType).toBeGreaterThanOrEqual(Math.floor(shared / CACHE_UNIT) * CACHE_UNIT);
    }
    expect(r.retry.qualityLoops).toBe(1);
    expect(r.retry.share).toBeGreaterThan(0.8);
    expect(r.runAllFive.share).toBeGreaterThan(0.5);
  });
});
