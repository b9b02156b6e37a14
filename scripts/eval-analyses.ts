/**
 * The analyses' evaluation corpus: seeded synthetic learners (six profiles — no data, all wrong,
 * all forgotten, long histories, many points, mixed reviews — in English and Chinese), every job
 * type through its offline analyzer, then the API's rules, the type's quality checks and the evidence
 * rules as the quality stage runs them. Prints the violations per type and rule; with `--write`,
 * also records them in bench-results/<date>-eval-analyses.md.
 *
 *   npm run eval:analyses                       (600 learners, seed 1)
 *   npm run eval:analyses -- --learners=60 --seed=7 --write
 *
 * Exits 1 when any type has a violation.
 */
import fs from "node:fs";
import path from "node:path";
import { JOB_TYPES } from "../server/job-types";
import { learners, PROFILES } from "./eval/learners";
import { evaluate, totalViolations } from "./eval/run";

const arg = (name: string, fallback: number) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.split("=")[1]) : fallback;
};
const count = arg("learners", 600);
const seed = arg("seed", 1);

const started = Date.now();
const list = learners(count, seed);
const tally = evaluate(list);
const seconds = ((Date.now() - started) / 1000).toFixed(1);

const lines: string[] = [];
lines.push(`# Analyses against their evidence: ${count} learners, seed ${seed}`, "");
lines.push(
  `${count} seeded learners (${PROFILES.join(", ")}; en and zh-CN in turn), every job type through the offline analyzer and the quality stage's rules (the API's, the type's quality checks, the evidence rules). ${seconds} s.`,
  "",
);
lines.push("| job type | outputs checked | declined (no input to work on) | violations |", "|---|---:|---:|---:|");
for (const t of JOB_TYPES) {
  const r = tally.runs[t] ?? { checked: 0, declined: 0 };
  lines.push(`| ${t} | ${r.checked} | ${r.declined} | ${totalViolations(tally, t)} |`);
}
lines.push("", "| job type | rule | violations | example |", "|---|---|---:|---|");
for (const t of JOB_TYPES)
  for (const [rule, n] of Object.entries(tally.violations[t] ?? {}).sort((a, b) => b[1] - a[1]))
    lines.push(
      `| ${t} | ${rule} | ${n} | ${(tally.examples[`${t}.${rule}`]?.[0] ?? "").replace(/\|/g, "\\|").slice(0, 240)} |`,
    );
if (!Object.keys(tally.violations).length) lines.push("| — | — | 0 | |");

const report = lines.join("\n");
console.log(report);
if (process.argv.includes("--write")) {
  const day = new Date().toISOString().slice(0, 10);
  const file = path.join("bench-results", `${day}-eval-analyses.md`);
  fs.writeFileSync(
    file,
    `${report}\n\nCommand: \`npm run eval:analyses -- --learners=${count} --seed=${seed} --write\`\n`,
  );
  console.log(`\nwritten to ${file}`);
}
process.exitCode = JOB_TYPES.some((t) => totalViolations(tally, t) > 0) ? 1 : 0;
