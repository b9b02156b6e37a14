/**
 * The analyses' evaluation corpus: seeded synthetic learners (six profiles — no data, all wrong,
 * all forgotten, long histories, many points, mixed reviews — in English and Chinese), every job
 * type through its offline analyzer, then the API's rules, the type's quality checks and the evidence
 * rules as the quality stage runs them. Prints the violations per type and rule; with `--write`,
 * also records them in bench-results/<date>-eval-adversarial.md (<date>-eval-analyses.md with
 * `--adversarial=0`).
 *
 * Then the adversarial evaluation (scripts/eval/adversarial.ts): contradictions of 26 kinds, each
 * in several wordings in Chinese and English, written into the clean outputs of the first
 * `--adversarial=N` learners and run through both doors; caught / missed per kind, on the tuning
 * half of the wordings and on the held-out half (odd positions in each kind's list).
 *
 *   npm run eval:analyses                       (600 learners, seed 1; adversarial on 120)
 *   npm run eval:analyses -- --learners=60 --adversarial=24 --seed=7 --write
 *
 * Exits 1 when any type has a violation on clean outputs, or the held-out half is caught below 95 %.
 */
import fs from "node:fs";
import path from "node:path";
import { JOB_TYPES } from "../server/job-types";
import { learners, PROFILES } from "./eval/learners";
import { adversarial, KINDS } from "./eval/adversarial";
import { evaluate, totalViolations } from "./eval/run";

const arg = (name: string, fallback: number) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.split("=")[1]) : fallback;
};
const count = arg("learners", 600);
const seed = arg("seed", 1);
const attacked = arg("adversarial", 120);

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

const advStarted = Date.now();
const adv = adversarial(list.slice(0, attacked));
const advSeconds = ((Date.now() - advStarted) / 1000).toFixed(1);
const sum = (f: (k: (typeof adv.kinds)[number]) => number) => adv.kinds.reduce((n, k) => n + f(k), 0);
/** Caught at both doors: the pipeline's quality stage and the API's check on a submitted result. */
const caught = (h: { caughtPipeline: number; caughtApi: number }) => Math.min(h.caughtPipeline, h.caughtApi);
const heldWritten = sum((k) => k.heldOut.written);
const heldCaught = sum((k) => caught(k.heldOut));
const heldRate = heldWritten ? heldCaught / heldWritten : 0;
const pctOf = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : "—");
lines.push(
  "",
  `## Adversarial: ${KINDS.length} kinds of contradiction, ${Math.min(attacked, count)} learners`,
  "",
  `Each kind's wordings (Chinese and English in turn) are written into the clean outputs of the first ${Math.min(attacked, count)} learners (in the learner's language) and run through both doors: the pipeline's quality stage and the API's check on a submitted result. Wordings at even positions in a kind's list are the tuning half, at odd positions the held-out half (never tuned on). Caught: a finding at both doors. ${advSeconds} s.`,
  "",
  "| kind | output | wordings | tuning: caught / written | held-out: caught / written | held-out missed |",
  "|---|---|---:|---:|---:|---:|",
);
for (const [i, k] of adv.kinds.entries())
  lines.push(
    `| ${k.name} | ${k.type} | ${KINDS[i]!.wordings.length} | ${caught(k.tune)} / ${k.tune.written} | ${caught(k.heldOut)} / ${k.heldOut.written} | ${k.heldOut.written - caught(k.heldOut)} |`,
  );
lines.push(
  `| **all** | | ${KINDS.reduce((n, k) => n + k.wordings.length, 0)} | ${sum((k) => caught(k.tune))} / ${sum((k) => k.tune.written)} (${pctOf(
    sum((k) => caught(k.tune)),
    sum((k) => k.tune.written),
  )}) | ${heldCaught} / ${heldWritten} (**${pctOf(heldCaught, heldWritten)}**) | ${heldWritten - heldCaught} |`,
  "",
  `False alarms on clean outputs: ${JOB_TYPES.reduce((n, t) => n + totalViolations(tally, t), 0)} (the table above: every type's offline analyzer on all ${count} learners).`,
);

const report = lines.join("\n");
console.log(report);
if (process.argv.includes("--write")) {
  const day = new Date().toISOString().slice(0, 10);
  const file = path.join("bench-results", `${day}-eval-${attacked > 0 ? "adversarial" : "analyses"}.md`);
  fs.writeFileSync(
    file,
    `${report}\n\nCommand: \`npm run eval:analyses -- --learners=${count} --adversarial=${attacked} --seed=${seed} --write\`\n`,
  );
  console.log(`\nwritten to ${file}`);
}
process.exitCode = JOB_TYPES.some((t) => totalViolations(tally, t) > 0) || heldRate < 0.95 ? 1 : 0;
