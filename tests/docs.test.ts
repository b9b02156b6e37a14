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
  const hitsIn = (files: string[], patterns: RegExp[]) =>
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
      hitsIn(
        tracked.filter((f) => f !== "tests/docs.test.ts"),
        everywhere,
      ),
    ).toEqual([]);
  });

  it("the README and docs/ date nothing by rounds of work", () => {
    expect(hitsIn(FILES, inDocs)).toEqual([]);
  });

  it("docs/performance.md, throughput.md and console-performance.md stay references (at most about 250 lines)", () => {
    for (const f of ["docs/performance.md", "docs/throughput.md", "docs/console-performance.md"])
      expect(fs.readFileSync(f, "utf8").split("\n").length, f).toBeLessThanOrEqual(260);
  });
});

/**
 * A clone alone explains the system: code, tests, scripts and the CI runner cite the repository's
 * own docs (`docs/contract.md#the-runtime-protocol`), never the brief outside it, and their
 * comments carry no work history (issue numbers live in the tracker and git, not in the code).
 */
describe("references stay inside the repository", () => {
  const CODE_ROOTS = ["server/", "tests/", "scripts/", "prisma/", "app/", "components/", "runtime/", ".ci/"];
  const code = execFileSync("git", ["ls-files", "-z"], { encoding: "utf8" })
    .split("\0")
    .filter((f) => CODE_ROOTS.some((r) => f.startsWith(r)) && fs.existsSync(f) && !f.startsWith("server/generated/"))
    .filter((f) => /\.(ts|tsx|mts|mjs|js|sql|prisma|sh)$/.test(f) || f === ".ci/run");
  /**
   * Migrations already applied keep every byte: Prisma stores each applied migration's checksum,
   * and `prisma migrate dev` asks to reset a database whose applied migration was edited. These
   * were written before the rule and stay as they were applied; a new migration follows it.
   */
  const APPLIED_BEFORE_THE_RULE = new Set([
    "prisma/migrations/20261202011500_six_hour_rollups/migration.sql",
    "prisma/migrations/20261202012000_runtime_hour_rollups/migration.sql",
    "prisma/migrations/20261202080000_event_result_partitions/migration.sql",
    "prisma/migrations/20261202180000_job_partitions/migration.sql",
    "prisma/migrations/20261206100000_job_traceparent/migration.sql",
  ]);
  // This file names the patterns it forbids.
  const checked = code.filter((f) => !APPLIED_BEFORE_THE_RULE.has(f) && f !== "tests/docs.test.ts");
  const lines = (f: string) =>
    fs
      .readFileSync(f, "utf8")
      .split("\n")
      .map((line, i) => ({ line, at: `${f}:${i + 1}` }));

  it("no issue number and no brief section (SPEC §n) in code, tests, scripts, migrations or the CI runner", () => {
    const forbidden = [/\bissues? #?\d+/i, /\bSPEC §/];
    const found = checked.flatMap((f) =>
      lines(f)
        .filter(({ line }) => forbidden.some((p) => p.test(line)))
        .map(({ at, line }) => `${at}: ${line.trim().slice(0, 100)}`),
    );
    expect(code.length).toBeGreaterThan(300);
    expect(found).toEqual([]);
  });

  it("the README and docs/ point to nothing outside the repository", () => {
    const outside = [/\.\.\/shared\//, /\bSPEC\.md\b/, /\bSPEC §/];
    const found = FILES.flatMap((f) =>
      lines(f)
        .filter(({ line }) => outside.some((p) => p.test(line)))
        .map(({ at, line }) => `${at}: ${line.trim().slice(0, 100)}`),
    );
    expect(found).toEqual([]);
  });

  it("every docs/<file>.md#<section> cited in code names a doc and a heading that exist", () => {
    const slugs = (file: string) =>
      [...fs.readFileSync(file, "utf8").matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^\p{L}\p{N} -]/gu, "")
          .replace(/ /g, "-"),
      );
    const cited = checked.flatMap((f) =>
      lines(f).flatMap(({ line, at }) =>
        [...line.matchAll(/docs\/([a-z-]+\.md)#([a-z0-9-]+)/g)].map((m) => ({ at, doc: m[1]!, anchor: m[2]! })),
      ),
    );
    expect(cited.length).toBeGreaterThan(50);
    const broken = cited.filter(
      ({ doc, anchor }) => !fs.existsSync(`docs/${doc}`) || !slugs(`docs/${doc}`).includes(anchor),
    );
    expect(broken.map(({ at, doc, anchor }) => `${at}: docs/${doc}#${anchor}`)).toEqual([]);
  });
});
