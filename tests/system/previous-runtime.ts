import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * The reference Runtimes of earlier releases, as recorded in git (docs/contract.md#versions-and-the-compatibility-promise):
 * both speak protocol 1 (no Runtime-Protocol header) and know output v1 only.
 */
export const PREVIOUS_RUNTIMES = {
  /** The 2026-12-06 release (CHANGELOG), the last commit before output v2: its /results items name their jobType. */
  release: "8afb224b16c4cecf6fb749402a4b3a38fd78049b",
  /** The commit before /results items named their jobType (67f4b9b): items without it. */
  untypedResults: "50639b6f0c0b9e9b1e5c78880317919c2cacd6b9",
} as const;

/**
 * A tree holding `commit`'s Runtime and the server modules it imports, from git alone (no network):
 * `git archive` of the files, with today's node_modules and generated Prisma client linked in (the
 * Runtime reads only the generated enums, which these commits share). Removed by `dispose`.
 */
export function previousRuntimeTree(commit: string): { dir: string; dispose: () => void } {
  try {
    execFileSync("git", ["cat-file", "-e", `${commit}^{commit}`], { cwd: ROOT, stdio: "ignore" });
  } catch {
    throw new Error(
      `commit ${commit} is not in this clone: the test needs the repository's history (not a shallow clone)`,
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `runtime-${commit.slice(0, 7)}-`));
  const archive = execFileSync(
    "git",
    ["archive", "--format=tar", commit, "runtime", "server", "i18n", "messages", "package.json", "tsconfig.json"],
    {
      cwd: ROOT,
      maxBuffer: 512 * 1024 * 1024,
    },
  );
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  fs.symlinkSync(path.join(ROOT, "server/generated"), path.join(dir, "server/generated"), "dir");
  return { dir, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
