import path from "node:path";
import pg from "pg";
import { dropDatabase, startEmbeddedDb } from "../lib/embedded-db";
import { deployMigrations } from "../lib/migrator";
import { DATA_DIR } from "../lib/database-url";

/**
 * A bench's own embedded PostgreSQL (`.data/pg-<name>-<port>`, fast settings plus `settings`):
 * started, migrated (all the way, or to the state before the migration `migrateBefore` names),
 * with one client connected and the app's modules pointed at it (DATABASE_URL),
 * then handed to `run`. Afterwards, whatever happened, the app's client is disconnected, the
 * database dropped and the server stopped.
 */
export async function onOwnDb(
  o: { name: string; port: number; settings?: Record<string, string>; migrateBefore?: string },
  run: (db: pg.Client, server: { url: string; dir: string }) => Promise<void>,
) {
  const dir = path.join(DATA_DIR, `pg-${o.name}-${o.port}`);
  const database = `ajr_${o.name}_${process.pid}`;
  const server = await startEmbeddedDb({ dir, port: o.port, database, fast: true, settings: o.settings });
  const db = new pg.Client({ connectionString: server.url });
  try {
    await deployMigrations(server.url, { before: o.migrateBefore });
    await db.connect();
    process.env.DATABASE_URL = server.url;
    await run(db, { url: server.url, dir });
  } finally {
    const { getDb } = await import("../../server/db");
    await getDb()
      .$disconnect()
      .catch(() => {});
    await db.end().catch(() => {});
    await dropDatabase(server.url.replace(/\/[^/]+$/, "/postgres"), database).catch(() => {});
    await server.stop();
  }
}
