import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const run = (root?: string) =>
  spawnSync(process.execPath, ["--import", "tsx", "scripts/import-graph.ts", ...(root ? [root] : [])], {
    encoding: "utf8",
  });

describe("scripts/import-graph.ts", () => {
  it("finds no upward arrow out of the domain and no import circle anywhere in server/", () => {
    const r = run();
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("import circles (0)");
    expect(r.stdout).toContain("upward arrows out of the domain (0)");
    expect(r.status).toBe(0);
  });

  it("fails on a circle, a type-only one too (`import type` is a dependency a reader follows)", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "graph-"));
    fs.mkdirSync(path.join(root, "server/learning"), { recursive: true });
    const file = (name: string, text: string) => fs.writeFileSync(path.join(root, "server/learning", name), text);
    file("a.ts", 'import { b } from "./b";\nexport const a = () => b;\n');
    file("b.ts", "export const b = 1;\n");
    file("c.ts", 'import { a } from "./a";\nexport const c = a;\n');
    const quiet = run(root);
    expect([quiet.stdout.includes("import circles (0)"), quiet.status]).toEqual([true, 0]);
    for (const loop of [
      'import type { c } from "./c";\nexport const b = 1;\nexport type B = typeof c;\n',
      'export type { C } from "./c";\nexport const b = 1;\n',
      'import { c } from "./c";\nexport const b = c;\n',
    ]) {
      file("b.ts", loop);
      const looped = run(root);
      expect(looped.stdout).toContain("import circles (1)");
      expect(looped.stdout).toContain("learning/a.ts ⇄ learning/b.ts ⇄ learning/c.ts");
      expect(looped.status).toBe(1);
    }
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("fails on a type-only upward arrow out of the domain", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "graph-"));
    fs.mkdirSync(path.join(root, "server/job-types"), { recursive: true });
    fs.mkdirSync(path.join(root, "server/jobs"), { recursive: true });
    fs.writeFileSync(path.join(root, "server/jobs/constants.ts"), "export type Code = string;\n");
    fs.writeFileSync(
      path.join(root, "server/job-types/a.ts"),
      'import type { Code } from "../jobs/constants";\nexport type A = Code;\n',
    );
    const r = run(root);
    expect(r.stdout).toContain("upward arrows out of the domain (1)");
    expect(r.stdout).toContain("job-types/a.ts → jobs/constants.ts");
    expect(r.status).toBe(1);
    fs.rmSync(root, { recursive: true, force: true });
  });
});
