import { spawn } from "node:child_process";
import path from "node:path";
import { startEmbeddedDb, dropDatabase, ensureDatabase } from "./lib/embedded-db";
import { deployMigrations } from "./lib/migrator";
import { DATA_DIR } from "./lib/database-url";

/**
 * `npm test`: a real PostgreSQL (embedded, or TEST_DATABASE_URL's server), a fresh database with
 * every migration applied, then the whole suite. The exit code is the suite's.
 * Extra arguments go to vitest (e.g. `npm test -- tests/jobs`).
 */
const args = process.argv.slice(2);
const database = `ajr_test_${process.pid}`;
let stop = async () => {};
let adminUrl: string;

if (process.env.TEST_DATABASE_URL) {
  adminUrl = process.env.TEST_DATABASE_URL;
  await ensureDatabase(adminUrl, database);
} else {
  const port = Number(process.env.TEST_PG_PORT ?? 54330);
  const db = await startEmbeddedDb({
    // One data folder per port, so runs on different ports never share (or stop) a server.
    dir: path.join(DATA_DIR, `pg-test-${port}`),
    port,
    database,
    fast: true,
  });
  stop = db.stop;
  adminUrl = db.url.replace(new RegExp(`/${database}$`), "/postgres");
}
const url = adminUrl.replace(/\/[^/]*$/, `/${database}`);

let code = 1;
try {
  await deployMigrations(url);
  code = await run("npx", ["vitest", "run", ...args], { DATABASE_URL: url, APP_DATA_DIR: path.join(DATA_DIR, "test") });
} finally {
  await dropDatabase(adminUrl, database).catch((e) => console.error("could not drop test database:", e.message));
  await stop();
}
process.exit(code);

function run(cmd: string, argv: string[], env: Record<string, string>) {
  return new Promise<number>((resolve) => {
    const child = spawn(cmd, argv, { stdio: "inherit", env: { ...process.env, ...env } });
    child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
}
