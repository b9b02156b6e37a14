import { spawn, type ChildProcess } from "node:child_process";

/** Starts a child in its own process group, so stopping it also stops what it started (next-server). */
export function startGroup(
  cmd: string,
  args: string[],
  env: Record<string, string | undefined>,
  name: string,
): ChildProcess {
  const child = spawn(cmd, args, {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, ...env },
    detached: true,
  });
  child.on("exit", (code, signal) => console.log(`[${name}] exited (${signal ?? code})`));
  return child;
}

export function stopGroup(child: ChildProcess | undefined, signal: NodeJS.Signals = "SIGTERM") {
  if (!child?.pid || child.exitCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
      resolve();
    }, 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid!, signal);
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

/**
 * Resolves when every process of the group is gone; past `timeoutMs` it SIGKILLs what is left (a
 * server whose shutdown hung must not outlive its test run: it holds the build lock and a port).
 * Returns whether it had to kill.
 */
export async function awaitGroupGone(pgid: number | undefined, timeoutMs: number): Promise<boolean> {
  if (!pgid) return false;
  const alive = () => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const until = Date.now() + timeoutMs;
  while (alive()) {
    if (Date.now() > until) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {}
      return true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

export async function waitForHttp(url: string, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}
