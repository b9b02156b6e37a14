import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { startEmbeddedDb, dropDatabase } from "./lib/embedded-db";
import { deployMigrations } from "./lib/migrator";
import { DATA_DIR } from "./lib/database-url";
import { ensureBuilt, startAppServer } from "./lib/app-server";
import { startGroup, stopGroup } from "./lib/processes";

/**
 * The whole product for the browser tests, as Playwright's webServer: a fresh database on the
 * embedded PostgreSQL (E2E_PG_PORT), migrations, demo seed, the production build served by
 * the production server (server/production-server.mjs) on E2E_PORT, and one reference Runtime (local analyzer, a small per-stage delay so
 * progress is visible). Runs until Playwright stops it. Short leases and a fast sweep keep
 * crash-and-return scenarios within seconds.
 */
const pgPort = Number(process.env.E2E_PG_PORT ?? 54370);
const port = Number(process.env.E2E_PORT ?? 3400);
const database = `ajr_e2e_${process.pid}`;
const pg = await startEmbeddedDb({ dir: path.join(DATA_DIR, `pg-e2e-${pgPort}`), port: pgPort, database, fast: true });
const adminUrl = pg.url.replace(/\/[^/]+$/, "/postgres");
await deployMigrations(pg.url);
process.env.DATABASE_URL = pg.url;
const { seed } = await import("../prisma/seed");
await seed();
const { createRuntimeKey } = await import("../server/runtime-keys");
const runtimeKey = (await createRuntimeKey("e2e reference runtime", undefined, { mayReceiveLearnerKeys: true })).key;
const { closeDb } = await import("../server/db");
await closeDb();

const origin = `http://127.0.0.1:${port}`;
const secrets = {
  BETTER_AUTH_SECRET: crypto.randomBytes(32).toString("base64url"),
  APP_ENCRYPTION_KEY: crypto.randomBytes(32).toString("hex"),
  METRICS_TOKEN: process.env.METRICS_TOKEN ?? "e2e-metrics-token",
};
// A webhook receiver answering 200, so the zero-setup webhook delivery (and its admin log) runs in
// the browser tests: every finished job is announced to it.
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/webhook`;
// A real OpenID Connect provider for the single sign-on browser test: its login form accepts any
// email as the login name, and that email is the account's.
const { startOidcProvider } = await import("../tests/helpers/oidc-provider");
const oidc = await startOidcProvider({
  clientId: "e2e-app",
  clientSecret: "e2e-oidc-client-secret",
  redirectUri: `${origin}/api/auth/callback/oidc`,
  accounts: (login) => (/^[^@\s]+@[^@\s]+$/.test(login) ? { email: login, name: login.split("@")[0]! } : undefined),
});
ensureBuilt();
const app = await startAppServer({
  databaseUrl: pg.url,
  port,
  env: {
    ...secrets,
    BETTER_AUTH_URL: origin,
    OIDC_ISSUER: oidc.issuer,
    OIDC_CLIENT_ID: "e2e-app",
    OIDC_CLIENT_SECRET: "e2e-oidc-client-secret",
    OIDC_PROVIDER_NAME: "Test IdP",
    TRUSTED_ORIGINS: `http://localhost:${port}`,
    APP_DATA_DIR: path.join(DATA_DIR, `e2e-${port}`),
    JOB_LEASE_SECONDS: process.env.JOB_LEASE_SECONDS ?? "10",
    SWEEP_INTERVAL_MS: process.env.SWEEP_INTERVAL_MS ?? "1000",
    RUNTIME_POLL_INTERVAL_MS: "300",
    JOB_WEBHOOK_URL: webhookUrl,
    JOB_WEBHOOK_SECRET: "e2e-webhook-secret",
    // Browser tests sign in many times a minute from one address.
    AUTH_SIGN_IN_PER_IP_PER_MINUTE: "10000",
    // The browser tests start dozens of analyses for the demo learners within minutes; the quota
    // spec lowers one learner's limit through the admin page instead.
    QUOTA_JOBS_PER_HOUR: "10000",
    QUOTA_JOBS_PER_DAY: "10000",
    QUOTA_JOB_TYPE_PER_HOUR: "none",
    // Small bulk batches: the console test runs one by hand and sees the exact middle state.
    BULK_BATCH_SIZE: "5",
  },
});
const runtime = startGroup(
  process.execPath,
  ["--import", "tsx", "runtime/main.ts"],
  {
    RUNTIME_API_URL: origin,
    RUNTIME_API_KEY: runtimeKey,
    RUNTIME_INSTANCE_ID: "e2e-runtime",
    RUNTIME_PROVIDER: "local",
    RUNTIME_CONCURRENCY: "4",
    RUNTIME_POLL_INTERVAL_MS: "300",
    // Short polls, not long polls: an idle long-polling Runtime claims a new job within
    // milliseconds, and the console tests' own test Runtime must be able to lock a fresh job first.
    RUNTIME_WAIT_MS: "0",
    RUNTIME_HEARTBEAT_MS: "1000",
    RUNTIME_LOCAL_DELAY_MS: process.env.RUNTIME_LOCAL_DELAY_MS ?? "400",
  },
  "runtime",
);
// Browser tests that run a command against this database (npm run learner:invite) read its URL here.
fs.writeFileSync(path.join(DATA_DIR, `e2e-${port}.database-url`), pg.url);
// Browser tests that sign as the server does (the digest's unsubscribe link) read its auth secret here.
fs.writeFileSync(path.join(DATA_DIR, `e2e-${port}.auth-secret`), secrets.BETTER_AUTH_SECRET, { mode: 0o600 });
console.log(`[e2e] app on ${origin}, database ${database}, runtime key ${runtimeKey.slice(0, 12)}…`);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await stopGroup(runtime);
  await app.stop();
  receiver.close();
  await oidc.close();
  await dropDatabase(adminUrl, database).catch(() => {});
  await pg.stop();
  process.exit(0);
}
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
