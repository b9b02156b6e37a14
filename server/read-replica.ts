import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { setting } from "./config";
import { getPrimaryDb, type Db } from "./db";
import { isAppError, isDatabaseUnavailable } from "./errors";
import { readScope } from "./read-scope";

/** Where the console's heavy reads go now, and why; lagSeconds is the standby's replay lag. */
export type ReadSource =
  | { source: "replica"; lagSeconds: number }
  | { source: "primary"; reason: "not configured" | "unreachable" | "behind"; lagSeconds: number | null };

/** What one look at the standby found: its lag (null: not streaming), or that it did not answer. */
type Look = { reachable: true; lag: number | null } | { reachable: false };
type Replica = { url: string; prisma: Db; pool: pg.Pool; looked?: { at: number; value: Promise<Look> } };
const g = globalThis as unknown as { __readReplica?: Replica };

/** How long one look at the standby's state is trusted: a replica that fails is left within a second. */
const CHECK_EVERY_MS = 1000;

/**
 * The standby's replay lag in seconds: 0 when it has replayed all it received, else the age of
 * the last transaction it replayed. null when it is not streaming from a primary (its lag is then
 * unknown and may grow without bound). A server that is no standby at all (a promoted one) lags 0.
 */
const LAG_SQL = `SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0
    WHEN NOT EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming') THEN NULL
    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
    ELSE GREATEST(0, EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()))
  END::float8 AS lag`;

function replica(): Replica | null {
  const url = setting("DATABASE_READ_URL");
  if (!url) return null;
  if (g.__readReplica?.url === url) return g.__readReplica;
  void g.__readReplica?.pool.end().catch(() => {});
  const pool = new pg.Pool({
    connectionString: url,
    max: setting("DB_READ_POOL_MAX"),
    connectionTimeoutMillis: 2000,
    keepAlive: true,
  });
  pool.on("error", (e) => console.error("[db] idle read-replica connection lost:", e.message));
  g.__readReplica = { url, pool, prisma: new PrismaClient({ adapter: new PrismaPg(pool) }) };
  return g.__readReplica;
}

async function look(r: Replica): Promise<Look> {
  try {
    const { rows } = await r.pool.query<{ lag: number | null }>({
      text: LAG_SQL,
      query_timeout: 2000,
    } as pg.QueryConfig);
    return { reachable: true, lag: rows[0]?.lag ?? null };
  } catch {
    return { reachable: false };
  }
}

/** Where a heavy read would go now (the console shows it beside what it read). */
export async function readSource(): Promise<ReadSource> {
  const r = replica();
  if (!r) return { source: "primary", reason: "not configured", lagSeconds: null };
  const at = Date.now();
  if (!r.looked || at - r.looked.at > CHECK_EVERY_MS) r.looked = { at, value: look(r) };
  const seen = await r.looked.value;
  if (!seen.reachable) return { source: "primary", reason: "unreachable", lagSeconds: null };
  if (seen.lag === null || seen.lag > setting("DB_READ_MAX_LAG_SECONDS"))
    return { source: "primary", reason: "behind", lagSeconds: seen.lag };
  return { source: "replica", lagSeconds: seen.lag };
}

/**
 * Runs a read-only `read` on the standby of DATABASE_READ_URL when it is up and within
 * DB_READ_MAX_LAG_SECONDS, else on the primary: getDb() inside it answers the standby's client.
 * The read runs again on the primary (a read is safe to repeat) when the standby fails it for want
 * of a connection, and when it finds nothing: a row made a moment ago (a re-run the admin was just
 * sent to) may not be replayed yet. Only for reads: a write inside it fails on the standby.
 */
export async function onReadReplica<T>(read: () => Promise<T>): Promise<T> {
  const where = await readSource();
  const r = replica();
  if (where.source !== "replica" || !r) return read();
  try {
    return await readScope.run(r.prisma, read);
  } catch (e) {
    if (isAppError(e) && e.status === 404) return read();
    if (!isDatabaseUnavailable(e)) throw e;
    r.looked = { at: Date.now(), value: Promise.resolve({ reachable: false }) };
    return read();
  }
}

/** Runs each statement of a long read on the client a `readerOf` chose (or on the primary since). */
export type Reader = <T>(statement: (db: Db) => Promise<T>) => Promise<T>;

/**
 * For a read made of many short statements that cannot start over once it has sent something (a
 * streamed export): the client is chosen once, by the rule of onReadReplica, and `read` runs each
 * statement on it. A statement the standby fails for want of a connection runs again on the
 * primary, and every later one with it. The client is passed to each statement, never put in the
 * read scope, so writes beside such a read (its audit row) stay on the primary.
 */
export async function readerOf(): Promise<{ where: ReadSource; read: Reader }> {
  const where = await readSource();
  const r = replica();
  const primary = getPrimaryDb();
  if (where.source !== "replica" || !r) return { where, read: (statement) => statement(primary) };
  let db = r.prisma;
  const read: Reader = async (statement) => {
    if (db === primary) return statement(primary);
    try {
      return await statement(db);
    } catch (e) {
      if (!isDatabaseUnavailable(e)) throw e;
      r.looked = { at: Date.now(), value: Promise.resolve({ reachable: false }) };
      db = primary;
      return statement(primary);
    }
  };
  return { where, read };
}

/**
 * Where a read came from, as a header value (X-Read-Source): `replica; lag=0.3`, or
 * `primary; reason=behind; lag=45.0` (no lag when the standby is not streaming),
 * `primary; reason=unreachable`, `primary; reason=not-configured`. Lags in seconds.
 */
export function readSourceHeader(where: ReadSource): string {
  const lag = where.lagSeconds === null ? "" : `; lag=${where.lagSeconds.toFixed(1)}`;
  if (where.source === "replica") return `replica${lag}`;
  return `primary; reason=${where.reason.replace(" ", "-")}${lag}`;
}

export async function closeReadReplica() {
  const r = g.__readReplica;
  g.__readReplica = undefined;
  await r?.prisma.$disconnect().catch(() => {});
  await r?.pool.end().catch(() => {});
}
