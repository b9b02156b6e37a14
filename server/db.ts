import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";

export type Db = InstanceType<typeof PrismaClient>;
/** A client or an interactive transaction: services that must join a transaction take this. */
export type DbOrTx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

const globalForDb = globalThis as unknown as { __prisma?: Db };

function createClient(): Db {
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) throw new Error("DATABASE_URL is not set (npm run dev sets it for the embedded PostgreSQL)");
  const adapter = new PrismaPg({
    connectionString,
    max: Number(process.env.DB_POOL_MAX ?? 10),
    connectionTimeoutMillis: Number(process.env.DB_CONNECT_TIMEOUT_MS ?? 10_000),
  });
  return new PrismaClient({ adapter });
}

/**
 * The one Prisma client, created on first use so that `next build` and imports never need a
 * database. Kept on globalThis so Next's dev reloads do not open a new pool per edit.
 */
export function getDb(): Db {
  globalForDb.__prisma ??= createClient();
  return globalForDb.__prisma;
}

export async function closeDb() {
  const db = globalForDb.__prisma;
  globalForDb.__prisma = undefined;
  await db?.$disconnect();
}
