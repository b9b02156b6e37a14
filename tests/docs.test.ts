import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** The README is short and points into docs/; every link between them leads somewhere. */
const FILES = [
  "README.md",
  ...fs
    .readdirSync("docs")
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

describe("documentation", () => {
  it.each(FILES)("%s: every relative link names a file that exists, and a heading that exists", (file) => {
    const text = fs.readFileSync(file, "utf8");
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [rel, anchor] = target!.split("#");
      const to = rel ? path.join(path.dirname(file), rel) : file;
      if (!fs.existsSync(to)) {
        broken.push(target!);
        continue;
      }
      const slugs = [...fs.readFileSync(to, "utf8").matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^\p{L}\p{N} -]/gu, "")
          .replace(/ /g, "-"),
      );
      if (anchor && !slugs.includes(anchor)) broken.push(target!);
    }
    expect(broken).toEqual([]);
  });

  it.each(FILES)("%s: every code path it names in backticks exists", (file) => {
    // Named as gone: the former fast lane.
    const gone = new Set(["scripts/serve.ts"]);
    const paths = [
      ...fs.readFileSync(file, "utf8").matchAll(/`((?:tests|server|scripts|components|app|runtime|prisma)\/[^`\s]+)`/g),
    ]
      .map((m) => m[1]!.split("#")[0]!.replace(/\/$/, ""))
      .filter((p) => !/[<{*…]/.test(p) && !gone.has(p));
    expect(paths.filter((p) => !fs.existsSync(p))).toEqual([]);
  });

  it("the README stays short: what it is, the commands, where to read on", () => {
    const readme = fs.readFileSync("README.md", "utf8");
    expect(readme.split("\n").length).toBeLessThanOrEqual(60);
    expect(readme).toContain("npm install && npm run dev");
    expect(readme).toContain("npm test");
    expect(readme).toContain("npm start");
    for (const doc of ["architecture", "protocol", "operations", "security", "performance"])
      expect(readme).toContain(`docs/${doc}.md`);
  });
});

/**
 * Docs and code state the present; history lives in git and in the dated files of bench-results/.
 * No tracked file speaks of work sessions or of other engineers, and the docs do not date their
 * figures by rounds of work ("this round", "before this round's changes").
 */
describe("the present tense", () => {
  const tracked = execFileSync("git", ["ls-files", "-z"], { encoding: "utf8" })
    .split("\0")
    .filter((f) => /\.(md|ts|tsx|mts|mjs|js|json|sql|prisma|yml|yaml|cfg|ini)$/.test(f))
    .filter((f) => !f.endsWith("package-lock.json") && fs.existsSync(f));
  const everywhere = [/\bsessions? \d/i, /\bother engineers\b/i, /\bwork sessions?\b/i];
  const inDocs = [/\bthis round\b/i, /\bbefore this round\b/i, /\blast round\b(?! trip)/i, /\bthe coordinator\b/i];
  const hits = (files: string[], patterns: RegExp[]) =>
    files.flatMap((f) =>
      fs
        .readFileSync(f, "utf8")
        .split("\n")
        .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
        .filter(({ line }) => patterns.some((p) => p.test(line)))
        .map(({ at, line }) => `${at}: ${line.trim().slice(0, 100)}`),
    );

  it("no tracked file speaks of work sessions", () => {
    // This file names the patterns it forbids.
    expect(
      hits(
        tracked.filter((f) => f !== "tests/docs.test.ts"),
        everywhere,
      ),
    ).toEqual([]);
  });

  it("the README and docs/ date nothing by rounds of work", () => {
    expect(hits(FILES, inDocs)).toEqual([]);
  });

  it("docs/performance.md, throughput.md and console-performance.md stay references (at most about 250 lines)", () => {
    for (const f of ["docs/performance.md", "docs/throughput.md", "docs/console-performance.md"])
      expect(fs.readFileSync(f, "utf8").split("\n").length, f).toBeLessThanOrEqual(260);
  });
});
