import path from "node:path";
import { startDevDb, DATA_DIR } from "./lib/database-url";
import { deployMigrations } from "./lib/migrator";
import { devRuntimeMode } from "./lib/dev-runtime";
import { ensureLocalRuntimeKey } from "./lib/local-runtime-key";
import { startGroup, startTether, stopGroup } from "./lib/processes";
import type { ChildProcess } from "node:child_process";

/**
 * `npm run dev` (and `npm run demo`, with --demo: the same on a production build — run
 * `npm run build` first): the whole app on one machine, with demo accounts and generated secrets.
 * Production is `npm start` (server/production-server.mjs), which does none of this. Without
 * DATABASE_URL it starts the embedded PostgreSQL (data in .data/pg, kept between runs); either
 * way it applies migrations, seeds the demo data, and starts Next.js and one reference Runtime
 * (local analyzer; DeepSeek for platform jobs when DEEPSEEK_API_KEY is set) unless DEV_RUNTIME=off.
 */
const demo = process.argv.includes("--demo");
let withRuntime: boolean;
try {
  withRuntime = devRuntimeMode(process.env.DEV_RUNTIME) === "on";
} catch (e) {
  console.error(`[dev] ${(e as Error).message}`);
  process.exit(78);
}
const port = process.env.PORT ?? "3000";
// Everything dev keeps between runs (embedded database, Runtime key, generated secrets) lives here.
const dataDir = process.env.APP_DATA_DIR ?? DATA_DIR;
const children: ChildProcess[] = [];
let stopDb = async () => {};
// Whatever ends this process (a SIGKILL too, when no handler below runs), what it started ends with it.
const tether = startTether();

let url = process.env.DATABASE_URL;
if (!url) {
  const db = await startDevDb(dataDir);
  url = db.url;
  const pid = db.pid;
  if (pid) tether.pid(pid, "SIGINT"); // PostgreSQL's fast shutdown
  stopDb = async () => {
    await db.stop();
    if (pid) tether.done(pid);
  };
  console.log(
    `[dev] embedded PostgreSQL at ${url.replace(/:[^:@/]+@/, ":***@")} (data in ${path.join(dataDir, "pg")})`,
  );
}
process.env.DATABASE_URL = url;

const applied = await deployMigrations(url);
console.log(applied.length ? `[dev] applied migrations: ${applied.join(", ")}` : "[dev] database schema is current");
const { seed } = await import("../prisma/seed");
await seed();
const runtimeKey = await ensureLocalRuntimeKey(dataDir);
const { closeDb } = await import("../server/db");
await closeDb();

const env = {
  DATABASE_URL: url,
  PORT: port,
  NEXT_TELEMETRY_DISABLED: "1",
  APP_DATA_DIR: dataDir,
  // No Inngest server in zero-setup mode: the app sweeps passed leases itself (instrumentation.ts).
  SWEEP_INTERVAL_MS: process.env.SWEEP_INTERVAL_MS ?? "60000",
};
const next = path.join("node_modules", ".bin", "next");
if (demo) {
  // One machine, zero setup: the generated secrets in .data are this single instance's own.
  const serve = [path.join("server", "production-server.mjs"), "-p", port];
  children.push(
    startGroup(process.execPath, serve, { ALLOW_GENERATED_SECRETS: "1", ...env, NODE_ENV: "production" }, "next"),
  );
} else {
  children.push(startGroup(next, ["dev", "-p", port], env, "next"));
}
tether.group(children[0]!);
console.log(
  `[dev] app on http://localhost:${port}  (runtime key for curl: ${runtimeKey.slice(0, 12)}…, full key in ${path.join(dataDir, "runtime-key")})`,
);

// The reference Runtime, as its own process speaking the HTTP protocol like any external one.
// Until Next answers it backs off; the local analyzer's small delay makes progress visible.
const runtime = withRuntime ? startRuntime() : null;
if (!runtime)
  console.log(
    `[dev] DEV_RUNTIME=off: no reference Runtime; point yours at this app with the key in ${path.join(dataDir, "runtime-key")}`,
  );

function startRuntime() {
  const child = startGroup(
    process.execPath,
    ["--import", "tsx", "runtime/main.ts"],
    {
      RUNTIME_API_URL: `http://127.0.0.1:${port}`,
      RUNTIME_API_KEY: runtimeKey,
      RUNTIME_INSTANCE_ID: process.env.RUNTIME_INSTANCE_ID ?? "local-runtime",
      RUNTIME_LOCAL_DELAY_MS: process.env.RUNTIME_LOCAL_DELAY_MS ?? "700",
      RUNTIME_SHUTDOWN_GRACE_MS: process.env.RUNTIME_SHUTDOWN_GRACE_MS ?? "5000",
    },
    "runtime",
  );
  tether.group(child);
  console.log(
    `[dev] reference Runtime started: ${process.env.DEEPSEEK_API_KEY ? "DeepSeek for platform jobs (DEEPSEEK_API_KEY is set)" : "local analyzer (set DEEPSEEK_API_KEY to use DeepSeek)"}`,
  );
  return child;
}

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  // The Runtime first, so it can hand its running jobs back to a live API.
  if (runtime) await stopGroup(runtime);
  await Promise.all(children.map((c) => stopGroup(c)));
  await stopDb();
  process.exit(0);
}
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
for (const c of runtime ? [...children, runtime] : children) c.on("exit", () => void shutdown());
