/**
 * The import graph of server/: prints its import circles and every upward arrow, type-only
 * imports included (`import type` is erased at run time, but it is a dependency a reader follows,
 * and a type-only circle is a knot all the same): server/jobs and server/job-types
 * importing anything but themselves and the ground floor, server/observability importing the
 * console or a door. Exits 1 when it finds an upward arrow or a circle, so CI can hold the line
 * (tests/scripts/import-graph.test.ts runs it).
 *
 *   npx tsx scripts/import-graph.ts [root]     (root: a checkout, default the current directory)
 */
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(process.argv[2] ?? ".");
const SERVER = path.join(root, "server");

/** Where the domain may import from (paths relative to server/, as prefixes). */
const DOMAIN: Record<string, string[]> = {
  jobs: [
    "jobs/",
    "job-types/",
    "generated/",
    "db.ts",
    "clock.ts",
    "config.ts",
    "errors.ts",
    "sql.ts",
    "audit.ts",
    "credentials.ts",
    // The supported languages: a leaf with no imports (a job records the one it is produced in).
    "i18n/locales.ts",
    "security/",
    "observability/metrics.ts",
    // Its traces: the API-only helpers and the job's spans (they import nothing of the app but these).
    "observability/tracing.ts",
    "observability/job-spans.ts",
    // The spaced-repetition scheduler (ts-fsrs and nothing of the app): a snapshot reads recall with it.
    "review/fsrs.ts",
    // What "due" means (no imports): the snapshot's due counts use the Review view's definition.
    "review/due.ts",
    // The learner model (the ground floor, the Prisma client, review/due and review/day only): the
    // snapshot carries its facts, so every analysis reads the figures every view states.
    "learner-model/",
    "review/day.ts",
  ],
  // A type's folder holds its local analyzer; a failing analyzer throws the pipeline's JobFailure.
  // The learner model's points (pure: a snapshot in, mastery and band out) are the analyzers' figures.
  "job-types": [
    "job-types/",
    "generated/",
    "i18n/locales.ts",
    "pipeline/errors.ts",
    "review/due.ts",
    "learner-model/points.ts",
  ],
};

/** Rooms that may import widely but never the console or the doors (paths relative to server/). */
const NEVER: Record<string, string[]> = { observability: ["admin/", "trpc/", "inngest/", "runtime-api/"] };

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : walk(p);
    return /\.(ts|tsx|mjs)$/.test(e.name) ? [p] : [];
  });
}

function resolve(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(root, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}.mjs`, path.join(base, "index.ts")])
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return null;
}

/** The imports of a file, `import type` / `export type` ones included. */
function imports(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+([^;]*?)\s*from\s*["']([^"']+)["']/gms)) {
    const target = resolve(file, m[3]!);
    if (target) found.push(target);
  }
  for (const m of text.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) {
    const target = resolve(file, m[1]!);
    if (target) found.push(target);
  }
  return found;
}

const rel = (p: string) => path.relative(SERVER, p);
const files = walk(SERVER);
const graph = new Map(files.map((f) => [f, imports(f).filter((t) => t.startsWith(SERVER + path.sep))]));

// Tarjan's strongly connected components: every component of more than one file is a circle.
let index = 0;
const idx = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const on = new Set<string>();
const circles: string[][] = [];
function visit(v: string) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v)!, low.get(w)!));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
  }
  if (low.get(v) === idx.get(v)) {
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      on.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1) circles.push(scc.map(rel).sort());
  }
}
for (const f of files) if (!idx.has(f)) visit(f);

const upward: string[] = [];
for (const [file, targets] of graph) {
  const room = rel(file).split(path.sep)[0]!;
  const allowed = DOMAIN[room];
  const never = NEVER[room] ?? [];
  for (const t of targets) {
    const to = rel(t);
    if ((allowed && !allowed.some((a) => to.startsWith(a))) || never.some((n) => to.startsWith(n)))
      upward.push(`${rel(file)} → ${to}`);
  }
}

console.log(
  `server/: ${files.length} files, ${[...graph.values()].reduce((n, t) => n + t.length, 0)} imports (type-only ones included)`,
);
console.log(`\nimport circles (${circles.length}):`);
for (const c of circles) console.log(`  ${c.join(" ⇄ ")}`);
console.log(`\nupward arrows out of the domain (${upward.length}):`);
for (const u of upward.sort()) console.log(`  ${u}`);
process.exitCode = upward.length || circles.length ? 1 : 0;
