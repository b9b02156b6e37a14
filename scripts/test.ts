import { spawn } from "node:child_process";
import path from "node:path";
import { startEmbeddedDb, dropDatabase, ensureDatabase } from "./lib/embedded-db";
import { deployMigrations } from "./lib/migrator";
import { DATA_DIR } from "./lib/database-url";

/**
 * `npm test`: a real PostgreSQL (embedded, or TEST_DATABASE_URL's server), then three stages, the
 * first two each on a fresh database with every migration applied:
 *   1. the unit and integration suite (vitest.config.ts);
 *   2. the system tests (vitest.system.config.ts): the production build over real HTTP with real
 *      Runtime processes (tests/system; the build is made once, when missing or stale);
 *   3. the browser tests (Playwright, Debian's chromium; tests/e2e): scripts/e2e-server.ts starts
 *      its own database, the production build and a reference Runtime.
 * The exit code is non-zero if any fails. Extra arguments go to vitest; paths pick the stage
 * (`npm test -- tests/jobs` runs stage 1 only, `npm test -- tests/system/fleet.test.ts` stage 2 only),
 * and `--stage=unit|system|e2e` picks one by name (`npm run test:unit` is `--stage=unit`).
 */
const STAGE_FLAG = /^--stage=(unit|system|e2e)$/;
const args = process.argv.slice(2);
const stageArg = args.map((a) => STAGE_FLAG.exec(a)?.[1]).find(Boolean);
if (args.some((a) => a.startsWith("--stage") && !STAGE_FLAG.test(a))) {
  console.error("usage: npm test -- [--stage=unit|system|e2e] [paths…] [vitest flags…]");
  process.exit(64);
}
const paths = args.filter((a) => !a.startsWith("-"));
const flags = args.filter((a) => a.startsWith("-") && !STAGE_FLAG.test(a));
const isSystem = (p: string) => path.normalize(p).startsWith(path.join("tests", "system"));
const isE2e = (p: string) => path.normalize(p).startsWith(path.join("tests", "e2e"));
const unitArgs = [...flags, ...paths.filter((p) => !isSystem(p) && !isE2e(p))];
const systemArgs = [...flags, ...paths.filter(isSystem)];
const picked = (stage: string, byPath: boolean) => (stageArg ? stageArg === stage : !paths.length || byPath);
const runUnit = picked(
  "unit",
  paths.some((p) => !isSystem(p) && !isE2e(p)),
);
const runSystem = picked("system", paths.some(isSystem));
const runE2e = picked("e2e", paths.some(isE2e));

let stop = async () => {};
let adminUrl: string;
let migrated = 0;
if (process.env.TEST_DATABASE_URL) {
  adminUrl = process.env.TEST_DATABASE_URL;
} else {
  const port = Number(process.env.TEST_PG_PORT ?? 54330);
  const db = await startEmbeddedDb({
    // One data folder per port, so runs on different ports never share (or stop) a server.
    dir: path.join(DATA_DIR, `pg-test-${port}`),
    port,
    database: "postgres",
    fast: true,
  });
  stop = db.stop;
  adminUrl = db.url;
}

let code = 0;
try {
  // Every stage runs even when an earlier one fails, so one run reports every failure.
  const unit = runUnit ? await stage(`ajr_test_${process.pid}`, ["vitest", "run", ...unitArgs]) : 0;
  const system = runSystem
    ? await stage(`ajr_system_${process.pid}`, ["vitest", "run", "--config", "vitest.system.config.ts", ...systemArgs])
    : 0;
  const e2e = runE2e
    ? await run("npx", ["playwright", "test", ...paths.filter(isE2e)], { CI: process.env.CI ?? "1" })
    : 0;
  code = unit || system || e2e;
} finally {
  await stop();
}
process.exit(code);

/** One vitest run on its own fresh database, dropped afterwards. */
async function stage(database: string, argv: string[]) {
  await ensureDatabase(adminUrl, database);
  const url = adminUrl.replace(/\/[^/]*$/, `/${database}`);
  try {
    // Prisma's wasm schema engine cannot be loaded twice in one process (the second load
    // panics): every stage after the first migrates from a child process.
    if (migrated++ === 0) await deployMigrations(url);
    else if ((await run("npx", ["tsx", "scripts/migrate.ts", "deploy"], { DATABASE_URL: url })) !== 0) return 1;
    // Each test file copies this migrated database as a template (tests/setup.ts), so files never
    // see each other's rows.
    return await run("npx", argv, {
      DATABASE_URL: url,
      TEST_TEMPLATE_DATABASE_URL: url,
      APP_DATA_DIR: path.join(DATA_DIR, "test"),
    });
  } finally {
    await dropDatabase(adminUrl, database).catch((e) => console.error("could not drop test database:", e.message));
  }
}

function run(cmd: string, argv: string[], env: Record<string, string>) {
  return new Promise<number>((resolve) => {
    const child = spawn(cmd, argv, { stdio: "inherit", env: { ...process.env, ...env } });
    child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
}
