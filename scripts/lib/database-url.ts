import path from "node:path";
import { startEmbeddedDb } from "./embedded-db";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const DATA_DIR = path.join(ROOT, ".data");

/**
 * DIRECT_DATABASE_URL, else DATABASE_URL when set (migrations and these commands each need one
 * session, never a transaction pooler); otherwise the embedded PostgreSQL
 * under .data/ (zero-setup mode), started for the duration of `fn`.
 */
export async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const url = process.env.DIRECT_DATABASE_URL || process.env.DATABASE_URL;
  if (url) return fn(url);
  const db = await startDevDb();
  try {
    return await fn(db.url);
  } finally {
    await db.stop();
  }
}

/** The zero-setup database: the embedded PostgreSQL in `<dataDir>/pg` (default .data/pg) on EMBEDDED_PG_PORT. */
export function startDevDb(dataDir = DATA_DIR) {
  return startEmbeddedDb({
    dir: path.join(dataDir, "pg"),
    port: Number(process.env.EMBEDDED_PG_PORT ?? 54329),
    database: "ai_job_runtime",
  });
}
