/**
 * The local analyzer's knowledge-point proposals against the labelled sets
 * (tests/job-types/fixtures/kp-labelled.ts, matched loosely; the textbook set
 * tests/job-types/fixtures/kp-textbook.ts and the subjects set tests/job-types/fixtures/kp-subjects.ts,
 * its tune and held-out halves apart, matched strictly): recall and precision per language, then
 * each material's proposals. `npm run kp:quality` (add `--rows` for the proposals).
 */
import { LABELLED } from "../tests/job-types/fixtures/kp-labelled";
import { TEXTBOOK } from "../tests/job-types/fixtures/kp-textbook";
import { SUBJECTS, type Half } from "../tests/job-types/fixtures/kp-subjects";
import { extractKnowledgePoints } from "../server/job-types/knowledge-point-extraction/analyse";
import { matches, measure, strictMatches } from "../tests/job-types/fixtures/kp-measure";

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const half = (h: Half) => SUBJECTS.filter((m) => m.half === h);
const sets = [
  { name: "labelled", results: measure(LABELLED, extractKnowledgePoints, matches) },
  { name: "textbook (strict)", results: measure(TEXTBOOK, extractKnowledgePoints, strictMatches) },
  { name: "subjects tune", results: measure(half("tune"), extractKnowledgePoints, strictMatches) },
  { name: "subjects held-out", results: measure(half("held-out"), extractKnowledgePoints, strictMatches) },
];
console.log("set                language  materials  recall  precision");
for (const { name, results } of sets)
  for (const r of results)
    console.log(
      `${name.padEnd(18)} ${r.language.padEnd(9)} ${String(r.materials).padStart(9)}  ${pct(r.recall).padStart(6)}  ${pct(r.precision).padStart(9)}`,
    );
if (process.argv.includes("--rows"))
  for (const { results } of sets)
    for (const r of results)
      for (const row of r.rows)
        console.log(
          `${row.id}: ${row.found}/${row.gold} found, ${row.correct}/${row.titles.length} right: ${row.titles.join(" | ")}`,
        );
