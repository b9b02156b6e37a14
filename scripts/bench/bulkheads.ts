import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { startEmbeddedDb, dropDatabase } from "../lib/embedded-db";
import { deployMigrations } from "../lib/migrator";
import { DATA_DIR } from "../lib/database-url";
import { ensureBuilt, startAppServer } from "../lib/app-server";
import { percentiles } from "./stats";
import { loadAverage } from "./cpu";
import type { Learner } from "../../tests/helpers/factories";

/**
 * `npm run bench:bulkheads`: what one tenant's worst costs the others, on the production server.
 * Quiet, then under attack (scripts/lib/bulkhead-attack.ts) — twelve exports of a 10 MB learner
 * that nobody reads, one key's activity calls of 1,000 reviews of one card four at a time for the
 * whole phase, a bulk cancel of 300 jobs — another learner's `jobs.list` (BENCH_BULKHEADS_CALLS
 * calls one after another, default 100), a sign-in, readiness, and the time from creation to
 * success of ten jobs a reference Runtime runs. Both phases in one run on one server (port
 * BENCH_PG_PORT for PostgreSQL), so a shared machine's load weighs on both: the figures that matter
 * are the ratios. Writes bench-results/bulkheads.json and .md.
 */
const CALLS = Number(process.env.BENCH_BULKHEADS_CALLS ?? 100);
const port = Number(process.env.BENCH_PG_PORT ?? 54360);
const database = `ajr_bulkheads_${process.pid}`;
process.env.BETTER_AUTH_SECRET ??= crypto.randomBytes(32).toString("base64url");
// The jobs this script makes for its two learners are set-up, not a learner's use: no quota.
process.env.QUOTA_JOBS_PER_HOUR ??= "100000";
process.env.QUOTA_JOBS_PER_DAY ??= "100000";
process.env.QUOTA_JOB_TYPE_PER_HOUR ??= "none";
const server = await startEmbeddedDb({ dir: path.join(DATA_DIR, `pg-bench-${port}`), port, database, fast: true });
await deployMigrations(server.url);
process.env.DATABASE_URL = server.url;
ensureBuilt();
const app = await startAppServer({
  databaseUrl: server.url,
  env: { BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET, SWEEP_INTERVAL_MS: "2000" },
});
const { getDb, closeDb } = await import("../../server/db");
const { runtimeKey } = await import("../../tests/helpers/factories");
const { createJobs } = await import("../../tests/system/jobs");
const { spawnRuntime } = await import("../../tests/system/runtime-process");
const { prepareBulkheadAttack, startBulkheadAttack, listTimes } = await import("../lib/bulkhead-attack");

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const value = await fn();
  return [performance.now() - t, value];
}

async function jobLatencies(ids: string[]) {
  for (;;) {
    const jobs = await getDb().aiRuntimeJob.findMany({
      where: { id: { in: ids } },
      select: { status: true, createdAt: true, finishedAt: true },
    });
    if (jobs.every((j) => j.status === "succeeded"))
      return jobs.map((j) => j.finishedAt!.getTime() - j.createdAt.getTime());
    if (jobs.some((j) => j.status === "failed" || j.status === "cancelled")) throw new Error("a job did not succeed");
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function phase(cookie: string, email: string, password: string, learner: Learner) {
  const jobs = await createJobs([learner], 10);
  const list = await listTimes(app.url, cookie, CALLS);
  const [signInMs, signIn] = await timed(() =>
    fetch(`${app.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.url },
      body: JSON.stringify({ email, password }),
    }).then((r) => r.status),
  );
  const [readyMs, ready] = await timed(() => fetch(`${app.url}/api/health/ready`).then((r) => r.status));
  return {
    list: percentiles(list),
    signIn: { ms: Math.round(signInMs), status: signIn },
    ready: { ms: Math.round(readyMs), status: ready },
    jobMs: percentiles(await jobLatencies(jobs)),
  };
}

let runtime: ReturnType<typeof spawnRuntime> | null = null;
try {
  const password = "bench-bulkheads-pw";
  const setup = await prepareBulkheadAttack({ url: app.url, password, heldJobs: 300, label: "bench" });
  const { other, otherCookie, held } = setup;
  // The Runtime starts once the attacker's jobs are held back from it.
  runtime = spawnRuntime({ apiUrl: app.url, apiKey: await runtimeKey() });
  await listTimes(app.url, otherCookie, 10);

  const quiet = await phase(otherCookie, other.user.email, password, other);
  console.log("[bulkheads] quiet", JSON.stringify(quiet));

  // The flood goes on, four calls at a time, for the whole phase.
  let flooding = true;
  const attack = await startBulkheadAttack(app.url, setup, { floodCalls: 4, flooding: () => flooding });
  const loud = await phase(otherCookie, other.user.email, password, other).finally(() => (flooding = false));
  const floodStatuses = await attack.flood;
  for (;;) {
    const run = await getDb().bulkRun.findUniqueOrThrow({ where: { id: attack.bulk.id } });
    if (run.status !== "running") break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const cancelled = await getDb().aiRuntimeJob.count({ where: { id: { in: held }, status: "cancelled" } });
  attack.closeExports();
  console.log("[bulkheads] attack", JSON.stringify(loud));

  const count = (xs: number[]) =>
    Object.entries(xs.reduce<Record<number, number>>((a, s) => ({ ...a, [s]: (a[s] ?? 0) + 1 }), {}))
      .map(([s, n]) => `${n}× ${s}`)
      .join(", ");
  const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : NaN);
  const result = {
    at: new Date().toISOString(),
    calls: CALLS,
    loadAverage: loadAverage(),
    quiet,
    attack: loud,
    ratios: {
      listP50: ratio(loud.list.p50, quiet.list.p50),
      listP95: ratio(loud.list.p95, quiet.list.p95),
      jobP95: ratio(loud.jobMs.p95, quiet.jobMs.p95),
    },
    exports: count(attack.exportStatuses),
    flood: count(floodStatuses),
    bulk: { jobs: held.length, cancelled },
  };
  const dir = path.resolve(import.meta.dirname, "../../bench-results");
  fs.writeFileSync(path.join(dir, "bulkheads.json"), JSON.stringify(result, null, 2) + "\n");
  fs.writeFileSync(
    path.join(dir, "bulkheads.md"),
    [
      "# Bulkheads: one tenant's worst beside another learner and a Runtime",
      "",
      `\`npm run bench:bulkheads\` (${result.at}), production server, one app process, a shared 2-core machine (load average ${result.loadAverage.join(" ")}): both phases in one run, so read the ratios.`,
      "",
      "| | quiet | under attack | ratio |",
      "|---|---|---|---|",
      `| another learner's \`jobs.list\`, p50 / p95 ms (${CALLS} calls) | ${quiet.list.p50} / ${quiet.list.p95} | ${loud.list.p50} / ${loud.list.p95} | ${result.ratios.listP50} / ${result.ratios.listP95} |`,
      `| ten jobs, created → succeeded, p50 / p95 ms (a reference Runtime) | ${quiet.jobMs.p50} / ${quiet.jobMs.p95} | ${loud.jobMs.p50} / ${loud.jobMs.p95} | — / ${result.ratios.jobP95} |`,
      `| sign-in (status, ms) | ${quiet.signIn.status}, ${quiet.signIn.ms} | ${loud.signIn.status}, ${loud.signIn.ms} | |`,
      `| readiness (status, ms) | ${quiet.ready.status}, ${quiet.ready.ms} | ${loud.ready.status}, ${loud.ready.ms} | |`,
      "",
      `The attack: 12 exports of a 10 MB learner read to their head only (${result.exports}); one key's activity calls of 1,000 reviews of one card, four at a time for the whole phase (${result.flood}); a bulk cancel of ${held.length} jobs (${cancelled} cancelled).`,
      "",
    ].join("\n"),
  );
  console.log(`[bulkheads] written: list p95 x${result.ratios.listP95}, job p95 x${result.ratios.jobP95}`);
} finally {
  await runtime?.kill("SIGKILL");
  await app.stop();
  await closeDb();
  await dropDatabase(server.url.replace(/\/[^/]*$/, "/postgres"), database).catch(() => {});
  await server.stop();
}
