import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { databaseConfig, setting } from "./config";
import { readScope } from "./read-scope";
import { applySessionLimits } from "./db-session";
import { DeadlineClient } from "./db-deadline";
import { closeReserveDb } from "./db-reserve";

export type Db = InstanceType<typeof PrismaClient>;
/** A client or an interactive transaction: services that must join a transaction take this. */
export type DbOrTx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

type Handles = { prisma: Db; pool: pg.Pool; claimPool: pg.Pool };
const globalForDb = globalThis as unknown as { __db?: Handles };

function create(): Handles {
  const connectionString = databaseConfig.url;
  if (!connectionString) throw new Error("DATABASE_URL is not set (npm run dev sets it for the embedded PostgreSQL)");
  const pool = new pg.Pool({
    connectionString,
    max: setting("DB_POOL_MAX"),
    connectionTimeoutMillis: setting("DB_CONNECT_TIMEOUT_MS"),
    // Commits under the app's deadline (server/db-deadline.ts).
    Client: DeadlineClient,
    // A primary lost without a word (power, network) is found by TCP keep-alive, not by waiting forever.
    keepAlive: true,
    onConnect: applySessionLimits,
  });
  // Claims and polls on connections of their own, planned once (see getClaimPool): a session
  // setting, so on the direct URL when DATABASE_URL is a transaction pooler.
  const claimPool = new pg.Pool({
    connectionString: databaseConfig.sessionUrl,
    max: setting("DB_CLAIM_POOL_MAX") ?? setting("DB_POOL_MAX"),
    connectionTimeoutMillis: setting("DB_CONNECT_TIMEOUT_MS"),
    // Commits under the app's deadline (server/db-deadline.ts).
    Client: DeadlineClient,
    keepAlive: true,
    onConnect: claimConnectionSetup,
  });
  // An idle connection the server dropped (restart, pg_terminate_backend) must not crash the process.
  for (const p of [pool, claimPool]) p.on("error", (e) => console.error("[db] idle connection lost:", e.message));
  return { prisma: new PrismaClient({ adapter: new PrismaPg(pool) }), pool, claimPool };
}

/**
 * A new claim connection's setting, awaited by the pool before it hands the connection out (a query
 * sent from the pool's "connect" event instead ran beside the caller's first statement: pg's
 * "client.query() when the client is already executing a query" warning, an error in pg 9). A
 * failure ends that connection and fails the statement that asked for it.
 */
async function claimConnectionSetup(client: pg.ClientBase) {
  await applySessionLimits(client);
  await client.query("SET plan_cache_mode = force_generic_plan");
}

function handles(): Handles {
  globalForDb.__db ??= create();
  return globalForDb.__db;
}

/**
 * The one Prisma client, created on first use so that `next build` and imports never need a
 * database. Kept on globalThis so Next's dev reloads do not open a new pool per edit.
 */
export function getDb(): Db {
  // Inside a console read sent to a standby (server/read-replica.ts): the standby's client.
  return (readScope.getStore() as Db | undefined) ?? handles().prisma;
}

/**
 * The primary's client, even inside a read sent to a standby: for writes that may run beside such
 * a read (an audit row), which a standby would refuse.
 */
export function getPrimaryDb(): Db {
  return handles().prisma;
}

/** The pg pool under the Prisma client: the hot-path statements of server/sql.ts run on it directly. */
export function getPool(): pg.Pool {
  return handles().pool;
}

/**
 * The connections claims and polls run on (DB_CLAIM_POOL_MAX), apart from the pool above so that a
 * Runtime's claim never waits behind other statements, and with generic plans: the claim is one
 * prepared statement whose generic plan is the same as its custom plans (the queue and lease
 * indexes in order, a LIMIT; tests/db/schema.test.ts holds it there), yet once the table holds many
 * finished jobs PostgreSQL's default mode re-plans it on every call — about 1.5 ms of a 3 ms claim.
 */
export function getClaimPool(): pg.Pool {
  return handles().claimPool;
}

export async function closeDb() {
  const h = globalForDb.__db;
  globalForDb.__db = undefined;
  await h?.prisma.$disconnect();
  await h?.pool.end().catch(() => {});
  await h?.claimPool.end().catch(() => {});
  await closeReserveDb();
}
