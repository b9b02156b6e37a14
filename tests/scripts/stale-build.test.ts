import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildInputs, staleInput } from "../../scripts/lib/app-server";

/**
 * The system, e2e, chaos and bench runs reuse a production build unless one of its inputs
 * changed: every input must count (pages/, prisma/, generated code, proxy.ts), and only inputs.
 */
let root: string;
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const past = new Date(Date.now() - 3_600_000);
function write(rel: string, when = past) {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, rel);
  fs.utimesSync(file, when, when);
  // Folders count their own changes too: give them the same past time.
  for (let d = path.dirname(file); d.startsWith(root) && d !== root; d = path.dirname(d)) fs.utimesSync(d, when, when);
}

function builtTree() {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "stale-build-"));
  for (const f of [
    "app/page.tsx",
    "server/jobs/cancel.ts",
    "server/generated/prisma/client.ts",
    "prisma/schema.prisma",
    "proxy.ts",
    "package.json",
    "tests/jobs/x.test.ts",
    "docs/a.md",
    "README.md",
    "runtime/main.ts",
    "node_modules/x/index.js",
  ])
    write(f);
  write(".next/BUILD_ID", new Date(Date.now() - 60_000));
  write(".next/app-config.mjs", new Date(Date.now() - 60_000));
}

describe("the stale-build check", () => {
  it("counts the app's inputs, not tests, docs, the Runtime or local state", () => {
    builtTree();
    fs.mkdirSync(path.join(root, "pages"));
    expect(buildInputs(root)).toEqual(["app", "package.json", "pages", "prisma", "proxy.ts", "server"]);
    expect(buildInputs()).toEqual(
      expect.arrayContaining([
        "app",
        "components",
        "server",
        "prisma",
        "proxy.ts",
        "next.config.js",
        "package-lock.json",
      ]),
    );
    expect(buildInputs()).not.toEqual(expect.arrayContaining(["tests"]));
  });

  it("a fresh build is reused; a change to tests, docs, the Runtime or node_modules keeps it", () => {
    builtTree();
    expect(staleInput(root)).toBeNull();
    for (const f of ["tests/jobs/y.test.ts", "docs/b.md", "README.md", "runtime/main.ts", "server/node_modules/x.js"])
      write(f, new Date());
    fs.utimesSync(path.join(root, "server"), past, past);
    expect(staleInput(root)).toBeNull();
  });

  it.each([
    "pages/index.tsx",
    "prisma/schema.prisma",
    "server/generated/prisma/client.ts",
    "proxy.ts",
    "app/page.tsx",
    ".env.production",
  ])("a newer %s makes it stale", (file) => {
    builtTree();
    write(file, new Date());
    expect(staleInput(root)).not.toBeNull();
  });

  it("a deleted input makes it stale (its folder changed), and so does a missing build", () => {
    builtTree();
    fs.rmSync(path.join(root, "server/jobs/cancel.ts"));
    expect(staleInput(root)).toBe("server");
    fs.rmSync(path.join(root, ".next/BUILD_ID"));
    expect(staleInput(root)).toBe(".next/BUILD_ID");
  });
});
