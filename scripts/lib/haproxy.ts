import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { anyFreePort } from "./pgbouncer";
import { startGroup, stopGroup } from "./processes";

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
  const child = startGroup(BIN, ["-db", "-f", file], {}, "haproxy", {
    output: (text) => (log = (log + text).slice(-5000)),
  });
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
      await stopGroup(child);
    },
  };
}
