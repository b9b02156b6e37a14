import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The browser's half of the job types: what a client component can reach through its value
 * imports (type-only ones are erased and never bundled) holds the catalogue and never a type's
 * analyzer, the registry, jieba or compromise, with no resolve alias standing in for them.
 */
const root = process.cwd();
const rel = (p: string) => path.relative(root, p);

function resolve(from: string, spec: string): string | null {
  const base = spec.startsWith("@/")
    ? path.join(root, spec.slice(2))
    : spec.startsWith(".")
      ? path.resolve(path.dirname(from), spec)
      : null;
  if (!base) return null;
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}.js`, `${base}.mjs`, path.join(base, "index.ts")])
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return null;
}

const packageOf = (spec: string) =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");

/** A file's value imports: files it loads, and packages (bare names). */
function valueImports(file: string): { files: string[]; packages: string[] } {
  const text = fs.readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
  const specs: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+([^;]*?)\s*from\s*["']([^"']+)["']/gms)) {
    const clause = m[2]!.trim();
    if (/^type\s/.test(clause)) continue;
    const named = clause.match(/^\{([\s\S]*)\}$/);
    if (named && named[1]!.split(",").every((n) => !n.trim() || /^type\s/.test(n.trim()))) continue;
    specs.push(m[3]!);
  }
  for (const m of text.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) specs.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) specs.push(m[1]!);
  const files: string[] = [];
  const packages: string[] = [];
  for (const s of specs) {
    const f = resolve(file, s);
    if (f) files.push(f);
    else if (!s.startsWith(".") && !s.startsWith("@/")) packages.push(packageOf(s));
  }
  return { files, packages };
}

/** Every file and package the starts reach, each file with the chain of imports that reached it. */
function reach(starts: string[]) {
  const via = new Map<string, string | null>(starts.map((s) => [s, null]));
  const packages = new Set<string>();
  const todo = [...starts];
  while (todo.length) {
    const f = todo.pop()!;
    const out = valueImports(f);
    out.packages.forEach((p) => packages.add(p));
    for (const next of out.files)
      if (!via.has(next)) {
        via.set(next, f);
        todo.push(next);
      }
  }
  const chain = (f: string): string => (via.get(f) ? `${chain(via.get(f)!)} → ${rel(f)}` : rel(f));
  return { files: [...via.keys()].map(rel), packages, chain: (f: string) => chain(path.join(root, f)) };
}

const walk = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : /\.(ts|tsx)$/.test(e.name) ? [p] : [];
  });

const clientEntries = ["app", "components"]
  .flatMap((d) => walk(path.join(root, d)))
  .filter((f) => /^\s*["']use client["']/.test(fs.readFileSync(f, "utf8")));

const SERVER_ONLY_PACKAGES = ["@node-rs/jieba", "compromise", "stopwords-iso"];
const serverOnlyFile = (f: string) =>
  /^server\/job-types\/([^/]+\/)?(analyse|index)\.ts$/.test(f) || f.startsWith("server/job-types/shared/terms/");

describe("the browser's job types", () => {
  it("client components reach the catalogue and none of the analyzers, the registry, jieba or compromise", () => {
    expect(clientEntries.length).toBeGreaterThan(20);
    const { files, packages, chain } = reach(clientEntries);
    expect(files).toContain("server/job-types/catalogue.ts");
    expect(files.filter(serverOnlyFile).map(chain)).toEqual([]);
    expect(SERVER_ONLY_PACKAGES.filter((p) => packages.has(p))).toEqual([]);
  });

  it("the same walk finds them from the server's registry (the check can fail)", () => {
    const { files, packages } = reach([path.join(root, "server/job-types/index.ts")]);
    expect(files).toContain("server/job-types/knowledge-point-extraction/analyse.ts");
    expect(SERVER_ONLY_PACKAGES.filter((p) => packages.has(p))).toEqual([
      "@node-rs/jieba",
      "compromise",
      "stopwords-iso",
    ]);
  });

  it("no resolve alias and no stub stand in for the analyzers in the browser bundle", () => {
    const config = fs.readFileSync(path.join(root, "next.config.js"), "utf8");
    expect(config).not.toMatch(/resolveAlias|browser-stub/);
    const stubs = walk(path.join(root, "server")).filter((f) => /stub/i.test(path.basename(f)));
    expect(stubs.map(rel)).toEqual([]);
  });
});
