import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { setting } from "./config";

export type Db = InstanceType<typeof PrismaClient>;
/** A client or an interactive transaction: services that must join a transaction take this. */
export type DbOrTx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

type Handles = { prisma: Db; pool: pg.Pool };
const globalForDb = globalThis as unknown as { __db?: Handles };

function create(): Handles {
  const connectionString = setting("DATABASE_URL");
  if (!connectionString) throw new Error("DATABASE_URL is not set (npm run dev sets it for the embedded PostgreSQL)");
  const pool = new pg.Pool({
    connectionString,
    max: setting("DB_POOL_MAX"),
    connectionTimeoutMillis: setting("DB_CONNECT_TIMEOUT_MS"),
  });
  // An idle connection the server dropped (restart, pg_terminate_backend) must not crash the process.
  pool.on("error", (e) => console.error("[db] idle connection lost:", e.message));
  return { prisma: new PrismaClient({ adapter: new PrismaPg(pool) }), pool };
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
  return handles().prisma;
}

/** The pg pool under the Prisma client: the hot-path statements of server/sql.ts run on it directly. */
export function getPool(): pg.Pool {
  return handles().pool;
}

export async function closeDb() {
  const h = globalForDb.__db;
  globalForDb.__db = undefined;
  await h?.prisma.$disconnect();
  await h?.pool.end().catch(() => {});
}
