import { startDevDb } from "./lib/database-url";
import { deployMigrations } from "./lib/migrator";

/**
 * `npm run db:start`: only the embedded PostgreSQL (migrated), in the foreground, for running the
 * app, tests or scripts against it with DATABASE_URL. `--reset` drops and recreates the database first;
 * `--no-migrate` leaves the schema alone (the deploy path migrates as its own step: `npm run db:migrate`).
 */
const db = await startDevDb();
if (process.argv.includes("--reset")) {
  const { dropDatabase, ensureDatabase } = await import("./lib/embedded-db");
  const admin = db.url.replace(/\/[^/]+$/, "/postgres");
  const name = db.url.split("/").pop()!;
  await dropDatabase(admin, name);
  await ensureDatabase(admin, name);
  console.log(`[db] recreated ${name}`);
}
if (!process.argv.includes("--no-migrate")) await deployMigrations(db.url);
console.log(`[db] ready: DATABASE_URL=${db.url}`);
const stop = async () => {
  await db.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
setInterval(() => {}, 1 << 30);
