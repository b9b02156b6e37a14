import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The production build's browser chunks (global-setup builds the app) hold no local analyzer:
 * not jieba, not compromise, not the analyzers' fixed sentences, and no stub standing in for them.
 * tests/job-types/browser-catalogue.test.ts proves the same on the import graph, without a build.
 */
const SIGNATURES: Record<string, string> = {
  "jieba (its API)": "withDict",
  "compromise (its tagger's word list)": "very remarkably extremely quite unusually",
  "an analyzer's template sentence": "Take a break before the next session",
  "the knowledge point extractor's template": "No knowledge points are recorded yet for this material.",
  "a browser stub for the analyzers": "the local analyzer runs on the server only",
};

const walk = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : e.name.endsWith(".js") ? [p] : [];
  });

describe("the browser bundle", () => {
  it("holds no analyzer and no stub in any client chunk", () => {
    const chunks = walk(path.join(process.cwd(), ".next/static"));
    expect(chunks.length).toBeGreaterThan(10);
    const text = chunks.map((f) => fs.readFileSync(f, "utf8"));
    // The catalogue is there (the learner page parses outputs with its schemas; its entries carry the rules' prose).
    expect(text.some((t) => t.includes("params.count` flashcards"))).toBe(true);
    const found = Object.entries(SIGNATURES).flatMap(([what, sig]) =>
      chunks.filter((_, i) => text[i]!.includes(sig)).map((f) => `${what}: ${path.relative(process.cwd(), f)}`),
    );
    expect(found).toEqual([]);
  });
});
