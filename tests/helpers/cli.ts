import { spawn } from "node:child_process";

/**
 * A test's run of one of our commands (`scripts/*.ts`), as `npm run …` runs it but without npx's
 * start-up: node with tsx's loader. Asynchronous, so the test's own timeout can still fire and the
 * database work of the same process goes on. A cold start takes 5–40 s on a busy two-core
 * machine: tests that run commands take CLI_TEST_TIMEOUT_MS.
 */
export const CLI_TEST_TIMEOUT_MS = 240_000;

export function runScript(
  script: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
