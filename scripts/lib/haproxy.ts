import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { anyFreePort } from "./pgbouncer";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = process.env.HAPROXY_PATH ?? "/usr/sbin/haproxy";

export type Haproxy = { url: string; port: number; pid(): number | undefined; stop(): Promise<void> };

/**
 * HAProxy (Debian's) with deploy/haproxy.cfg: the file as shipped, with its bind port and its
 * `server` lines replaced by `servers` (host:port each). Resolves once it answers HTTP.
 */
export async function startHaproxy(opts: { servers: string[]; port?: number }): Promise<Haproxy> {
  const port = opts.port ?? (await anyFreePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ajr-haproxy-"));
  const lines = fs.readFileSync(path.join(ROOT, "deploy", "haproxy.cfg"), "utf8").split("\n");
  const first = lines.findIndex((l) => /^\s+server app\d+ /.test(l));
  const servers = opts.servers.map((s, i) => `    server app${i + 1} ${s}`);
  const cfg = [...lines.slice(0, first), ...servers, ...lines.slice(first).filter((l) => !/^\s+server app\d+ /.test(l))]
    .join("\n")
    .replace(/^(\s+bind )\S+/m, `$1127.0.0.1:${port}`);
  const file = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(file, cfg);
  let log = "";
  const child: ChildProcess = spawn(BIN, ["-db", "-f", file], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  for (const s of [child.stdout!, child.stderr!])
    s.on("data", (b: Buffer) => (log = (log + b.toString()).slice(-5000)));
  process.on("exit", () => child.exitCode === null && child.kill("SIGKILL"));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}):\n${log}`);
    // Any HTTP answer (503 while no instance is up yet) means it listens.
    const answered = await fetch(`${url}/api/health/live`).then(
      () => true,
      () => false,
    );
    if (answered) break;
    if (Date.now() > until) throw new Error(`haproxy does not answer:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    pid: () => child.pid,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode) return;
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    },
  };
}
