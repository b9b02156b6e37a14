import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { databaseConfig, setting } from "./config";
import { applySessionLimits } from "./db-session";
import { DeadlineClient } from "./db-deadline";

/**
 * A small pool of its own (DB_RESERVE_POOL_MAX connections) for the doors that need the
 * database for their own checks: sign-in and session lookups (better-auth, its rate limits and
 * the sign-in throttle) and readiness. No learner's, key's or client's work runs on it, so
 * however busy the main pool is, people can still sign in and the load balancer still sees the
 * instance ready. Created on first use, kept on globalThis like the main pool.
 */
/** The same client type as server/db.ts's Db, named here so neither file imports the other. */
type Db = InstanceType<typeof PrismaClient>;
type Handles = { prisma: Db; pool: pg.Pool };
const globalForReserve = globalThis as unknown as { __dbReserve?: Handles };

function create(): Handles {
  const connectionString = databaseConfig.url;
  if (!connectionString) throw new Error("DATABASE_URL is not set (npm run dev sets it for the embedded PostgreSQL)");
  const pool = new pg.Pool({
    connectionString,
    max: setting("DB_RESERVE_POOL_MAX"),
    connectionTimeoutMillis: setting("DB_CONNECT_TIMEOUT_MS"),
    // Commits under the app's deadline (server/db-deadline.ts).
    Client: DeadlineClient,
    onConnect: applySessionLimits,
  });
  pool.on("error", (e) => console.error("[db] idle reserve connection lost:", e.message));
  return { prisma: new PrismaClient({ adapter: new PrismaPg(pool) }), pool };
}

export function getReserveDb(): Db {
  globalForReserve.__dbReserve ??= create();
  return globalForReserve.__dbReserve.prisma;
}

export function getReservePool(): pg.Pool {
  getReserveDb();
  return globalForReserve.__dbReserve!.pool;
}

export async function closeReserveDb() {
  const h = globalForReserve.__dbReserve;
  globalForReserve.__dbReserve = undefined;
  await h?.prisma.$disconnect();
  await h?.pool.end().catch(() => {});
}
