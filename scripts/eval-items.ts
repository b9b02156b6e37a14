/**
 * The offline quiz and card generators on the labelled item set
 * (tests/job-types/fixtures/items-labelled.ts), judged by the teacher's checklist
 * (server/job-types/shared/checklist.ts, docs/item-checklist.md): per half and language, the share
 * of items that pass every rule and the materials whose calculation, why-question or refuted
 * misconception no item asks. `npm run eval:items` (add `--rows` for every item and the rules it breaks).
 */
import { ITEMS_LABELLED } from "../tests/job-types/fixtures/items-labelled";
import { measureItems } from "../tests/job-types/fixtures/items-measure";

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log("half       language  materials  items  passed  pass rate  missing");
for (const half of ["tune", "held-out"] as const) {
  const results = measureItems(ITEMS_LABELLED.filter((m) => m.half === half));
  for (const r of results)
    console.log(
      `${half.padEnd(10)} ${r.language.padEnd(9)} ${String(r.materials).padStart(9)}  ${String(r.items).padStart(5)}  ${String(r.passed).padStart(6)}  ${pct(r.rate).padStart(9)}  ${r.missing.join("; ") || "none"}`,
    );
  if (process.argv.includes("--rows"))
    for (const r of results)
      for (const v of r.verdicts)
        for (const i of v.items)
          console.log(`${v.id} ${i.broken.length ? `FAIL ${i.broken.join(",")}` : "ok"}: ${i.text}`);
}
