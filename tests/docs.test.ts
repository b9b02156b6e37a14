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
