import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { awaitGroupGone, stopGroup, waitForHttp } from "./processes";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** How long a stopped server may take to exit: SHUTDOWN_GRACE_MS (25 s) and then some. */
const GROUP_EXIT_MS = 60_000;
const NEXT = path.join(ROOT, "node_modules", ".bin", "next");
const BUILD_ID = path.join(ROOT, ".next", "BUILD_ID");
const ESBUILD = path.join(ROOT, "node_modules", ".bin", "esbuild");
/** What `npm run build:config` runs: server/config.ts as plain JS for the production server's check before listening. */
const CONFIG_BUNDLE_ARGS =
  "server/config.ts --bundle --platform=node --format=esm --target=node20 --outfile=.next/app-config.mjs --log-level=warning";
/** The production server of `npm start` (plain JavaScript: Next's handler plus graceful shutdown). */
const SERVE = path.join(ROOT, "server", "production-server.mjs");
/**
 * Builds hold this lock exclusively and running test servers hold it shared, so a build in the
 * shared checkout never rewrites .next/ under a server that is reading it, nor starts one half-built.
 */
const BUILD_LOCK = path.join(ROOT, ".data", "next-build.lock");
/**
 * What is not an input of the production build: tests, tools, docs, the reference Runtime (the
 * app imports none of them) and local state. Everything else at the top level is, so a new input
 * (pages/, public/, proxy.ts, a config file) counts without being listed; generated code
 * (server/generated, made from prisma/) counts too.
 */
const NOT_BUILD_INPUTS = new Set([
  ".git",
  ".data",
  ".next",
  "node_modules",
  ".ci",
  "tests",
  "scripts",
  "docs",
  "runtime",
  "seeds",
  "deploy",
  "bench-results",
  "chaos-results",
  "test-results",
  "playwright-report",
  "playwright.config.ts",
  "vitest.config.ts",
  "vitest.system.config.ts",
  "eslint.config.mjs",
  ".prettierrc.json",
  ".prettierignore",
  ".gitignore",
  "tsconfig.tsbuildinfo",
  "next-env.d.ts",
  "coverage",
]);

/** The top-level files and folders a production build is made from. */
export function buildInputs(root = ROOT): string[] {
  return fs
    .readdirSync(root)
    .filter((e) => !NOT_BUILD_INPUTS.has(e) && !e.endsWith(".md"))
    .sort();
}

/** The newest change under `p`: files, and folders too (a deleted or renamed file changes its folder). */
function newestChange(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(p)) {
    if (entry === "node_modules") continue;
    newest = Math.max(newest, newestChange(path.join(p, entry)));
  }
  return newest;
}

/** The first build input changed since the build in `root`/.next (or the build itself, when missing), else null. */
export function staleInput(root = ROOT): string | null {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (!fs.existsSync(buildId)) return ".next/BUILD_ID";
  if (!fs.existsSync(path.join(root, ".next", "app-config.mjs"))) return ".next/app-config.mjs";
  const built = fs.statSync(buildId).mtimeMs;
  return buildInputs(root).find((s) => newestChange(path.join(root, s)) > built) ?? null;
}

/**
 * `next build` once, when the build is missing or older than its sources. Builds write .next/
 * in the shared checkout, so they run under an exclusive lock (flock) and re-check inside it.
 */
export function ensureBuilt(log: (msg: string) => void = console.log) {
  if (!staleInput() && !process.env.SYSTEM_TEST_REBUILD) return;
  fs.mkdirSync(path.join(ROOT, ".data"), { recursive: true });
  const lock = BUILD_LOCK;
  const script = `${
    process.env.SYSTEM_TEST_REBUILD
      ? ""
      : `[ -f "${BUILD_ID}" ] && [ -f .next/app-config.mjs ] && [ -z "$(find ${buildInputs()
          .map((s) => `'${s}'`)
          .join(" ")} -name node_modules -prune -o -newer "${BUILD_ID}" -print 2>/dev/null | head -1)" ] && exit 0; `
  }"${NEXT}" build && exec "${ESBUILD}" ${CONFIG_BUNDLE_ARGS}`;
  log("[app-server] building the app (next build)…");
  const r = spawnSync("flock", [lock, "sh", "-c", script], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
  });
  if (r.status !== 0) throw new Error(`next build failed (exit ${r.status})`);
}

/** A free TCP port in [from, to] (system tests use 3200–3299 on shared machines). */
export async function freePort(from = 3200, to = 3299): Promise<number> {
  const start = from + Math.floor(Math.random() * (to - from + 1));
  for (let i = 0; i <= to - from; i++) {
    const port = from + ((start - from + i) % (to - from + 1));
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once("error", () => resolve(false));
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error(`no free port in ${from}-${to}`);
}

export type AppServer = {
  url: string;
  port: number;
  /** Stops the server (its whole process group). `signal` SIGKILL simulates a crash. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port (after stop). */
  start(): Promise<void>;
  output(): string;
  /** The process group id (the group leader's pid), e.g. to read its CPU time from /proc. */
  pgid(): number | undefined;
};

/**
 * The production server (server/production-server.mjs, what `npm start` runs) against
 * `databaseUrl`, on a free port, as its own process group so stopping it stops all of it. `env` adds settings (e.g. JOB_LEASE_SECONDS).
 */
export async function startAppServer(opts: {
  databaseUrl: string;
  env?: Record<string, string>;
  port?: number;
  /** Node's own flags for the app process (a profiler's, say). */
  nodeArgs?: string[];
}): Promise<AppServer> {
  const port = opts.port ?? (await freePort());
  let child: ChildProcess | undefined;
  let out = "";
  let killOrphan = () => {};
  const start = async () => {
    fs.mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
    child = spawn(
      "flock",
      ["-s", BUILD_LOCK, process.execPath, ...(opts.nodeArgs ?? []), SERVE, "-p", String(port), "-H", "127.0.0.1"],
      {
        cwd: ROOT,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        // Test servers may generate their secrets into APP_DATA_DIR (production would refuse).
        env: {
          ...process.env,
          NODE_ENV: "production",
          NEXT_TELEMETRY_DISABLED: "1",
          ALLOW_GENERATED_SECRETS: "1",
          DATABASE_URL: opts.databaseUrl,
          // The port it really listens on: zero-setup auth trusts only its own origin (a PORT from the caller's shell would differ).
          PORT: String(port),
          ...opts.env,
        },
      },
    );
    // The group must not outlive this process (a bench stopped with Ctrl-C, a crashed test run): an
    // orphan keeps its shared hold on the build lock, so the next `next build` waits for it forever.
    const group = child.pid;
    process.removeListener("exit", killOrphan);
    killOrphan = () => {
      try {
        if (group) process.kill(-group, "SIGKILL");
      } catch {
        // already gone
      }
    };
    process.on("exit", killOrphan);
    const keep = (b: Buffer) => {
      out = (out + b.toString()).slice(-20_000);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    // Generous: on a loaded 2-core machine a cold production server can take a minute or more.
    await waitForHttp(`http://127.0.0.1:${port}/internal/runtime/openapi.json`, 240_000);
  };
  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    // Until the whole group is gone, not just flock (its leader): the server drains first (at most
    // SHUTDOWN_GRACE_MS), and one whose shutdown hangs is killed rather than left holding the build lock.
    stop: async (signal = "SIGTERM") => {
      const pgid = child?.pid;
      process.removeListener("exit", killOrphan);
      await stopGroup(child, signal);
      if (await awaitGroupGone(pgid, GROUP_EXIT_MS))
        console.error(`[app-server] port ${port}: still running ${GROUP_EXIT_MS} ms after ${signal}; killed`);
    },
    start,
    output: () => out,
    pgid: () => child?.pid,
  };
}
