import path from "node:path";
import { startEmbeddedDb } from "./embedded-db";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const DATA_DIR = path.join(ROOT, ".data");

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under .data/ (zero-setup mode),
 * started for the duration of `fn` unless `keep` is set.
 */
export async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  if (process.env.DATABASE_URL) return fn(process.env.DATABASE_URL);
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
