import fs from "node:fs";
import path from "node:path";
import type { SnapshotContent } from "../../server/job-types/fields";
import { AS_OF, smallSnapshot } from "../../tests/pipeline/fixtures";
import { runAllFive } from "../../tests/providers/run-all-five";
import { cacheSavings, estimateCost } from "../../server/jobs/prices";

/**
 * `npm run bench:prompt-cache`: the share of a "Run all five"'s input tokens that DeepSeek's
 * prompt cache serves, and of a quality-loop retry's, through the real pipeline and DeepSeek
 * provider against the fake DeepSeek server (prefix match in units of 64 tokens, as DeepSeek
 * documents it). Token counts, not timings: the figures do not depend on how busy the machine is.
 * Writes bench-results/prompt-cache-<date>.md.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

/** The test fixture's learner, and the same learner with a material at the snapshot's 4,000-character cap. */
function snapshots(): [string, SnapshotContent][] {
  const small = smallSnapshot();
  const text = small.materials[0]!.content;
  const full = {
    ...small,
    materials: [{ ...small.materials[0]!, content: text.repeat(Math.ceil(4000 / text.length)).slice(0, 4000) }],
  };
  return [
    ["fixture learner (one 350-character material)", small],
    ["one material at the 4,000-character cap", full],
  ];
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const lines = [
  `# Prompt cache: share of input tokens served from DeepSeek's cache (${new Date().toISOString().slice(0, 10)})`,
  "",
  "`npm run bench:prompt-cache` (token counts through the real pipeline against the fake DeepSeek server; prices: the defaults).",
  "",
  "| snapshot | Run all five: prompt tokens | from cache | share | cost saved | quality-loop retry: prompt tokens | from cache | share |",
  "|---|---:|---:|---:|---:|---:|---:|---:|",
];
for (const [name, snapshot] of snapshots()) {
  const r = await runAllFive(snapshot, AS_OF);
  const five = r.runAllFive;
  const saved = cacheSavings(five.cacheHitTokens);
  const full = estimateCost(five.promptTokens, 0);
  lines.push(
    `| ${name} | ${five.promptTokens} | ${five.cacheHitTokens} | ${pct(five.share)} | ${pct(saved / full)} of the prompt cost | ${r.retry.promptTokens} | ${r.retry.cacheHitTokens} | ${pct(r.retry.share)} |`,
  );
  console.log(name, JSON.stringify(r));
}
const out = path.join(ROOT, "bench-results", `prompt-cache-${new Date().toISOString().slice(0, 10)}.md`);
fs.writeFileSync(out, `${lines.join("\n")}\n`);
console.log(fs.readFileSync(out, "utf8"));
