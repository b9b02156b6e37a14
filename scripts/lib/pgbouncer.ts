import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startGroup, stopGroup } from "./processes";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = process.env.PGBOUNCER_PATH ?? "/usr/sbin/pgbouncer";

export type PgBouncer = {
  port: number;
  /** `databaseUrl` with its host and port replaced by PgBouncer's. */
  url: string;
  pid(): number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * PgBouncer (Debian's) with deploy/pgbouncer.ini, in front of the PostgreSQL of `databaseUrl`: the
 * file as shipped, with its port, its [databases] entry (any database name, to that server) and its
 * file paths replaced. As root it runs as the `postgres` user (PgBouncer refuses root).
 */
export async function startPgBouncer(opts: {
  databaseUrl: string;
  port?: number;
  poolSize?: number;
}): Promise<PgBouncer> {
  const port = opts.port ?? (await anyFreePort());
  const target = new URL(opts.databaseUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ajr-pgbouncer-"));
  fs.chmodSync(dir, 0o777);
  const user = decodeURIComponent(target.username);
  fs.writeFileSync(
    path.join(dir, "userlist.txt"),
    `"${user}" "${decodeURIComponent(target.password).replace(/"/g, '""')}"\n`,
  );
  const set: Record<string, string> = {
    listen_port: String(port),
    auth_file: path.join(dir, "userlist.txt"),
    logfile: path.join(dir, "pgbouncer.log"),
    pidfile: path.join(dir, "pgbouncer.pid"),
    admin_users: user,
  };
  if (opts.poolSize) set.default_pool_size = String(opts.poolSize);
  const ini = fs
    .readFileSync(path.join(ROOT, "deploy", "pgbouncer.ini"), "utf8")
    .replace(/^(\w+)\s*=.*$/gm, (line, key: string) => (key in set ? `${key} = ${set[key]}` : line))
    .replace(/^ai_job_runtime = .*$/m, `* = host=${target.hostname} port=${target.port || 5432}`);
  fs.writeFileSync(path.join(dir, "pgbouncer.ini"), ini);
  for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o644);

  const url = new URL(opts.databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  let child: ChildProcess | undefined;
  const asRoot = process.getuid?.() === 0 ? ["-u", "postgres"] : [];
  const start = async () => {
    // Its log is the file (read when it fails to start); what it writes to stderr is dropped.
    child = startGroup(BIN, [...asRoot, path.join(dir, "pgbouncer.ini")], {}, "pgbouncer", { output: () => {} });
    const started = child;
    process.on("exit", () => started.exitCode === null && started.kill("SIGKILL"));
    await answers(url.toString(), started, () => fs.readFileSync(path.join(dir, "pgbouncer.log"), "utf8"));
  };
  await start();
  return {
    port,
    url: url.toString(),
    pid: () => child?.pid,
    start,
    // SIGTERM: immediate shutdown, every client and server connection closed (what a crash or a
    // restart of the pooler looks like to the app).
    stop: async () => {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode) return;
      await stopGroup(c);
    },
  };
}

/** Until a query through PgBouncer answers (it is then listening and reaches PostgreSQL). */
async function answers(url: string, child: ChildProcess, log: () => string) {
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}):\n${log().slice(-2000)}`);
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    c.on("error", () => {});
    try {
      await c.connect();
      await c.query("SELECT 1");
      return;
    } catch (e) {
      if (Date.now() > until) throw new Error(`pgbouncer does not answer: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await c.end().catch(() => {});
    }
  }
}

/** A port nothing listens on now (the kernel's pick). */
export function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
