import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { ensureBuilt, startAppServer } from "../lib/app-server";
import { startEmbeddedDb, dropDatabase, ensureDatabase } from "../lib/embedded-db";
import { DATA_DIR } from "../lib/database-url";
import { deployMigrations } from "../lib/migrator";

/**
 * `npm run bench:footprint`: what one app instance (the production server) holds, in counts, not
 * timings (so a busy machine does not change them; docs/scaling.md):
 * - its PostgreSQL connections after start, with FOOTPRINT_STREAMS learners' event streams open,
 *   and with FOOTPRINT_POLLS Runtime long polls waiting at once;
 * - its resident memory per open event stream (VmRSS before and after opening them, over their number).
 * Its own embedded PostgreSQL on FOOTPRINT_PG_PORT (default 54339), a fresh database, the demo seed.
 */
const STREAMS = Number(process.env.FOOTPRINT_STREAMS ?? 500);
const POLLS = Number(process.env.FOOTPRINT_POLLS ?? 64);
const port = Number(process.env.FOOTPRINT_PG_PORT ?? 54339);

ensureBuilt();
const db = await startEmbeddedDb({
  dir: path.join(DATA_DIR, `pg-footprint-${port}`),
  port,
  database: "postgres",
  fast: true,
});
const database = `ajr_footprint_${process.pid}`;
const admin = db.url;
await ensureDatabase(admin, database);
const url = admin.replace(/\/[^/]*$/, `/${database}`);
const aborts = new AbortController();
try {
  await deployMigrations(url);
  process.env.DATABASE_URL = url;
  const { seed } = await import("../../prisma/seed");
  const { LEARNERS, DEMO_PASSWORDS } = await import("../../prisma/seed-data");
  await seed();
  const { createRuntimeKey } = await import("../../server/runtime-keys");
  const { closeDb } = await import("../../server/db");
  const runtimeKey = (await createRuntimeKey("footprint")).key;
  await closeDb();

  const app = await startAppServer({ databaseUrl: url });
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  const connections = async () =>
    (
      await probe.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      )
    ).rows[0].n as number;
  const serverPid = findServerPid(app.pgid()!);
  const rssKb = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${serverPid}/status`, "utf8"))![1]);

  const learner = LEARNERS[0]!;
  const signIn = await fetch(`${app.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.url },
    body: JSON.stringify({ email: learner.email, password: DEMO_PASSWORDS.learner }),
  });
  if (signIn.status !== 200) throw new Error(`sign-in answered ${signIn.status}`);
  const cookie = signIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

  // One stream first, so the LISTEN connection and the route's code are loaded before the baseline.
  await openStream(app.url, cookie, aborts.signal);
  await settle();
  const idle = { connections: await connections(), rssKb: rssKb() };
  for (let i = 1; i < STREAMS; i += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, STREAMS - i) }, () => openStream(app.url, cookie, aborts.signal)),
    );
  await settle();
  const streams = { connections: await connections(), rssKb: rssKb() };
  // Long polls that wait (no job pending): each holds a claim connection only while it claims.
  const polls = Array.from({ length: POLLS }, (_, i) =>
    fetch(`${app.url}/internal/runtime/jobs/poll`, {
      method: "POST",
      headers: { authorization: `Bearer ${runtimeKey}`, "content-type": "application/json" },
      body: JSON.stringify({ runtimeInstanceId: `footprint-${i}`, waitMs: 20_000, capabilities: ["quiz_generation"] }),
      signal: aborts.signal,
    }).catch(() => null),
  );
  await settle();
  const polling = await connections();
  aborts.abort();
  await Promise.all(polls);
  await probe.end();
  await app.stop();
  const perStream = ((streams.rssKb - idle.rssKb) * 1024) / (STREAMS - 1);
  console.log(
    [
      `# One app instance's footprint (npm run bench:footprint, ${new Date().toISOString()})`,
      "",
      `| what | count |`,
      `|---|---|`,
      `| PostgreSQL connections after start and one event stream | ${idle.connections} |`,
      `| … with ${STREAMS} event streams open | ${streams.connections} |`,
      `| … and ${POLLS} Runtime long polls waiting | ${polling} |`,
      `| server VmRSS with one stream / with ${STREAMS} | ${(idle.rssKb / 1024).toFixed(1)} / ${(streams.rssKb / 1024).toFixed(1)} MB |`,
      `| resident memory per event stream | ${(perStream / 1024).toFixed(1)} KB |`,
    ].join("\n"),
  );
} finally {
  aborts.abort();
  await dropDatabase(admin, database).catch(() => {});
  await db.stop();
}

/** Opens one event stream and waits for its first bytes (the stream is then registered). */
async function openStream(base: string, cookie: string, signal: AbortSignal) {
  const res = await fetch(`${base}/api/jobs/events`, { headers: { cookie, accept: "text/event-stream" }, signal });
  if (res.status !== 200) throw new Error(`event stream answered ${res.status}`);
  const reader = res.body!.getReader();
  await reader.read();
  // Keep reading (and discarding) until aborted, as a browser would.
  void (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // aborted
    }
  })();
}

function settle() {
  return new Promise((r) => setTimeout(r, 2000));
}

/** The node process serving the app: the one in the server's process group running production-server.mjs. */
function findServerPid(pgid: number): number {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (Number(fields[2]) === pgid && cmd.includes("production-server.mjs") && !cmd.startsWith("flock"))
        return Number(entry);
    } catch {
      // gone
    }
  }
  throw new Error(`no server process in group ${pgid}`);
}
