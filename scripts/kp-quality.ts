/**
 * The local analyzer's knowledge-point proposals against the labelled set
 * (tests/job-types/fixtures/kp-labelled.ts): recall and precision per language, then each
 * material's proposals. `npm run kp:quality` (add `--rows` for the proposals).
 */
import { measure } from "../tests/job-types/fixtures/kp-measure";

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const results = measure();
console.log("language  materials  recall  precision");
for (const r of results)
  console.log(
    `${r.language.padEnd(9)} ${String(r.materials).padStart(9)}  ${pct(r.recall).padStart(6)}  ${pct(r.precision).padStart(9)}`,
  );
if (process.argv.includes("--rows"))
  for (const r of results)
    for (const row of r.rows)
      console.log(
        `${row.id}: ${row.found}/${row.gold} found, ${row.correct}/${row.titles.length} right: ${row.titles.join(" | ")}`,
      );
