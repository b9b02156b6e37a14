import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";

export type GroupOptions = {
  /** Its folder (default: this process's). */
  cwd?: string;
  /** `env` is its whole environment, rather than this process's with `env` over it. */
  ownEnv?: boolean;
  /** Its user and group (as root: a server that refuses root, such as PostgreSQL). */
  uid?: number;
  gid?: number;
  /** Its stdout and stderr go here rather than to this process's. */
  output?: (text: string) => void;
};

/** Starts a child in its own process group, so stopping it also stops what it started (next-server). */
export function startGroup(
  cmd: string,
  args: string[],
  env: Record<string, string | undefined>,
  name: string,
  opts: GroupOptions = {},
): ChildProcess {
  const child: ChildProcess = spawn(cmd, args, {
    stdio: ["ignore", opts.output ? "pipe" : "inherit", opts.output ? "pipe" : "inherit"],
    env: (opts.ownEnv ? env : { ...process.env, ...env }) as NodeJS.ProcessEnv,
    detached: true,
    cwd: opts.cwd,
    uid: opts.uid,
    gid: opts.gid,
  });
  if (opts.output)
    for (const s of [child.stdout!, child.stderr!]) s.on("data", (b: Buffer) => opts.output!(b.toString()));
  child.on("exit", (code, signal) => console.log(`[${name}] exited (${signal ?? code})`));
  return child;
}

/** Resolves once `child` has exited (at once if it has already). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Sends `signal` to a process, or with `-pgid` to a whole group; one that is gone already is no error. */
export function signalQuietly(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}

/** SIGTERMs (or `signal`s) the child's group and waits for the child; past `timeoutMs` it SIGKILLs the group. */
export function stopGroup(child: ChildProcess | undefined, signal: NodeJS.Signals = "SIGTERM", timeoutMs = 10_000) {
  if (!child?.pid || child.exitCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      signalQuietly(-child.pid!, "SIGKILL");
      resolve();
    }, timeoutMs);
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

/**
 * Starts the tether (tether.mjs): a process of its own (its own group and session, so neither a
 * terminal's signals nor a kill of dev's group reach it) that ends every group and process this
 * one hands it when this process exits, however it exits (a SIGKILL included: the kernel closes
 * the pipe it reads).
 */
export function startTether() {
  const tether = spawn(process.execPath, [path.join(import.meta.dirname, "tether.mjs")], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  tether.unref();
  const say = (line: string) => {
    if (tether.stdin?.writable) tether.stdin.write(`${line}\n`);
  };
  return {
    /**
     * A child started with startGroup: its whole group ends with this process. The group is kept
     * after its leader exits, since what the leader started (next-server) may still be in it.
     */
    group(child: ChildProcess) {
      if (child.pid) say(`group ${child.pid}`);
    },
    /** One process outside those groups (the embedded postmaster), ended with `signal`. */
    pid(pid: number, signal: NodeJS.Signals) {
      say(`pid ${pid} ${signal}`);
    },
    /** A process handed over with pid() that has been stopped: forget it (its pid may be reused). */
    done(pid: number) {
      say(`done ${pid}`);
    },
  };
}
