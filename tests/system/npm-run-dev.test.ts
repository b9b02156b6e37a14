import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/app-server";
import { awaitGroupGone, waitForHttp } from "../../scripts/lib/processes";
import { eventually } from "../helpers/eventually";

/**
 * `npm run dev` as a newcomer runs it, with nothing set up: no DATABASE_URL, no secrets. It must
 * start the embedded PostgreSQL, apply the migrations, seed the demo data, serve the app (health,
 * sign-in page) with the reference Runtime, let the demo learner sign in, and on SIGTERM stop
 * everything it started (the database included). Its data folder (APP_DATA_DIR) is a fresh
 * temporary one, so this is a first run, and the developer's own .data is never touched.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
let dev: ChildProcess | undefined;
let port = 0;
let pgPort = 0;
let dataDir = "";
let output = "";
const portFree = (p: number) =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(p, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
const origin = () => `http://localhost:${port}`;

/** `npm run dev` in the checkout, as its own process group, with this file's ports and data folder. */
function startDev() {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    APP_DATA_DIR: dataDir,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "development",
  };
  for (const name of ["DATABASE_URL", "BETTER_AUTH_URL", "BETTER_AUTH_SECRET", "APP_ENCRYPTION_KEY", "METRICS_TOKEN"])
    delete env[name];
  dev = spawn("npm", ["run", "dev"], { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (b: Buffer) => (output = (output + b.toString()).slice(-20_000));
  dev.stdout!.on("data", keep);
  dev.stderr!.on("data", keep);
}

beforeAll(async () => {
  port = process.env.PORT ? Number(process.env.PORT) : await freePort();
  pgPort = process.env.EMBEDDED_PG_PORT ? Number(process.env.EMBEDDED_PG_PORT) : await freePort();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ajr-npm-run-dev-"));
  startDev();
  // initdb, migrations, seed and the first compile of the page, on a loaded machine.
  await waitForHttp(`http://127.0.0.1:${port}/sign-in`, 280_000).catch((e) => {
    throw new Error(`${(e as Error).message}\n${output}`);
  });
}, 300_000);

afterAll(async () => {
  if (dev?.pid && dev.exitCode === null) {
    try {
      process.kill(-dev.pid, "SIGTERM");
    } catch {}
    await awaitGroupGone(dev.pid, 60_000);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("[SYSTEM] npm run dev, from nothing", () => {
  it("starts the embedded database with demo data; the app answers health and the sign-in page", async () => {
    expect(output).toMatch(/\[dev\] embedded PostgreSQL at postgres(ql)?:\/\/\S+:\d+/);
    expect(output).toContain(`data in ${path.join(dataDir, "pg")}`);
    expect(output).toMatch(/\[dev\] applied migrations: /);
    expect(output).toMatch(/\[dev\] reference Runtime started/);
    expect(fs.existsSync(path.join(dataDir, "pg"))).toBe(true);
    expect(fs.readFileSync(path.join(dataDir, "runtime-key"), "utf8")).toMatch(/^ajr_/);

    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(health.status).toBe(200);
    const signInPage = await fetch(`http://127.0.0.1:${port}/sign-in`);
    expect(signInPage.status).toBe(200);
    expect(await signInPage.text()).toMatch(/<form|sign in/i);
  });

  it("the demo learner signs in and sees their own demo data", async () => {
    const res = await fetch(`${origin()}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: origin() },
      body: JSON.stringify({ email: "ada@example.com", password: "learner-demo-password" }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect(cookie).toMatch(/session_token=/);
    const me = await fetch(`${origin()}/api/trpc/me.get`, { headers: { cookie, origin: origin() } });
    expect(me.status).toBe(200);
    expect((await me.json()).result.data.user.email).toBe("ada@example.com");
    const targets = await fetch(`${origin()}/api/trpc/targets.list`, { headers: { cookie, origin: origin() } });
    expect(targets.status).toBe(200);
    const materials = (await targets.json()).result.data.materials as { title: string }[];
    expect(materials.length).toBeGreaterThan(0);
  });

  it("Ctrl-C stops everything it started: the app, the Runtime and the embedded database", async () => {
    const exited = new Promise<void>((resolve) => dev!.once("exit", () => resolve()));
    // What a terminal's Ctrl-C does: SIGINT to the foreground process group (npm, tsx, dev.ts).
    process.kill(-dev!.pid!, "SIGINT");
    await exited;
    expect(await awaitGroupGone(dev!.pid, 60_000), "npm run dev's own processes outlived it").toBe(false);
    expect(output).toMatch(/\[next\] exited/);
    expect(output).toMatch(/\[runtime\] exited/);
    // Both ports are free again: next-server and the postmaster are gone (dev.ts waits for them before it exits).
    expect(await portFree(port)).toBe(true);
    expect(await portFree(pgPort)).toBe(true);
  });

  it("killed hard (SIGKILL), it leaves no process behind, and npm run dev starts again in the same folder", async () => {
    output = "";
    startDev();
    await waitForHttp(`http://127.0.0.1:${port}/api/health`, 280_000).catch((e) => {
      throw new Error(`${(e as Error).message}\n${output}`);
    });
    await eventually("the reference Runtime started", async () => output.includes("[dev] reference Runtime started"));
    // The node process running scripts/dev.ts (under npm, sh and tsx's own launcher).
    const ts = deepest(processes().filter((p) => p.pgid === dev!.pid && p.cmdline.includes("scripts/dev.ts")));
    const started = descendants(ts.pid);
    // next (and next-server), the Runtime, the postmaster and its backends, the tether.
    expect(started.length).toBeGreaterThanOrEqual(4);
    process.kill(ts.pid, "SIGKILL");
    const left = await eventually(
      "everything dev started has ended",
      async () => {
        const alive = new Set(processes().map((p) => p.pid));
        const still = [...started, ...processes().filter((p) => p.pgid === dev!.pid)].filter((p) => alive.has(p.pid));
        return still.length === 0 ? [] : null;
      },
      60_000,
    ).catch(() => processes().filter((p) => started.some((s) => s.pid === p.pid)));
    expect(left.map((p) => p.cmdline)).toEqual([]);
    expect(await portFree(port)).toBe(true);
    expect(await portFree(pgPort)).toBe(true);

    output = "";
    startDev();
    await waitForHttp(`http://127.0.0.1:${port}/api/health`, 280_000).catch((e) => {
      throw new Error(`${(e as Error).message}\n${output}`);
    });
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    expect(output).toMatch(/\[dev\] database schema is current/);
  });
});

type Proc = { pid: number; ppid: number; pgid: number; cmdline: string };

/** Every live process (zombies, which are only waiting to be reaped, left out), from /proc. */
function processes(): Proc[] {
  const out: Proc[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state === "Z" || state === "X") continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ").trim();
      out.push({ pid: Number(entry), ppid: Number(ppid), pgid: Number(pgid), cmdline });
    } catch {
      // ended while we looked
    }
  }
  return out;
}

function descendants(pid: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  const walk = (parent: number) => {
    for (const p of all.filter((q) => q.ppid === parent)) {
      found.push(p);
      walk(p.pid);
    }
  };
  walk(pid);
  return found;
}

/** Of processes in a parent chain, the one whose parent is among them and none of whose children is. */
function deepest(chain: Proc[]): Proc {
  const leaf = chain.find((p) => !chain.some((q) => q.ppid === p.pid));
  if (!leaf) throw new Error("scripts/dev.ts is not running");
  return leaf;
}
