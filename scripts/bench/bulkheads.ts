import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { startEmbeddedDb, dropDatabase } from "../lib/embedded-db";
import { deployMigrations } from "../lib/migrator";
import { DATA_DIR } from "../lib/database-url";
import { ensureBuilt, startAppServer } from "../lib/app-server";
import { percentiles } from "./stats";
import { loadAverage, postmasterPid } from "./cpu";
import { bigPost, idleCpuPerMs, refusalCost } from "./refusals";
import type { Learner } from "../../tests/helpers/factories";

/**
 * `npm run bench:bulkheads`: what one tenant's worst costs the others, on the production server.
 * First what each refusal costs the app (CPU per refused call, scripts/bench/refusals.ts). Then
 * another learner's `jobs.list` (BENCH_BULKHEADS_CALLS calls one after another, default 100)
 * quiet and under each attack in turn (scripts/lib/bulkhead-attack.ts): (1) every export download
 * three accounts and a key can hold, read by nobody, with the others' exports (her own, the
 * console's, the platform's) read beside them; (2) four callers posting 2 MB bodies with a bogus
 * key for the whole phase; (3) with the downloads still held, one key's activity calls of 1,000
 * reviews of one card four at a time for the whole phase and a bulk cancel of 300 jobs — there
 * also a sign-in, readiness, and the time from creation to success of ten jobs a reference
 * Runtime runs. All in one run on one server (port BENCH_PG_PORT for PostgreSQL), so a shared
 * machine's load weighs on every phase: the figures that matter are the ratios. Writes
 * bench-results/bulkheads.json and .md.
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
const { startBulkRun } = await import("../../server/admin/bulk");
const { prepareBulkheadAttack, holdExports, startFlood, listTimes, othersExports } =
  await import("../lib/bulkhead-attack");

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

  // What a refusal costs: each kind one after another, the app otherwise idle.
  const roles = {
    appGroup: app.pgid()!,
    postmaster: server.pid ?? postmasterPid(path.join(DATA_DIR, `pg-bench-${port}`)),
  };
  const idle = await idleCpuPerMs(roles.appGroup, roles.postmaster);
  const v1 = (ext: string) => `${app.url}/api/v1/learners/${ext}/activity`;
  const fat = (i: number) =>
    JSON.stringify({
      reviews: Array.from({ length: 1000 }, (_, n) => ({
        externalId: `fat-${i}-${n}`,
        cardExternalId: "one-card",
        front: "F".repeat(900),
        back: "B".repeat(900),
        rating: "good",
        reviewedAt: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
      })),
    });
  const fatBody = fat(0);
  const postText = (url: string, body: string, headers: Record<string, string>) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(
      async (r) => (await r.arrayBuffer(), r.status),
    );
  const exts: string[] = [];
  for (let i = 0; i < 20; i++) {
    const ext = `fat-${i}-${process.pid}`;
    const put = await fetch(`${app.url}/api/v1/learners/${ext}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${setup.otherKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Fat" }),
    });
    await put.text();
    exts.push(ext);
  }
  const refusals = [];
  for (const r of [
    {
      name: "platform API, bogus key, 2 MB body → 401",
      n: 100,
      send: () => bigPost(v1(setup.ext), 2_000_000, { authorization: "Bearer sk_bogus" }),
    },
    {
      name: "platform API, 1,000 reviews of one card (1.9 MB) → 409 CARD_LOG_FULL",
      n: exts.length,
      send: (i: number) => postText(v1(exts[i]!), fatBody, { authorization: `Bearer ${setup.otherKey}` }),
    },
    {
      name: "platform API, the same key and learner again (1.9 MB) → 429 held back",
      n: 100,
      send: (i: number) => postText(v1(exts[i % exts.length]!), fatBody, { authorization: `Bearer ${setup.otherKey}` }),
    },
    {
      name: "Runtime API, bogus key, 200 KB body → 401",
      n: 100,
      send: () => bigPost(`${app.url}/internal/runtime/jobs/poll`, 200_000, { authorization: "Bearer rk_bogus" }),
    },
    {
      name: "tRPC, no session, 900 KB body → 413",
      n: 100,
      send: () => bigPost(`${app.url}/api/trpc/jobs.create`, 900_000, { origin: app.url }),
    },
  ])
    refusals.push(await refusalCost(r, roles, idle));
  console.log("[bulkheads] refusals", JSON.stringify(refusals));

  // Attack 1: every export the attackers can hold, read by nobody; the others' exports beside them.
  let flooding = false;
  const attack = await holdExports(app.url, setup);
  const besideExports = othersExports(app.url, setup);
  const exportsHeld = percentiles(await listTimes(app.url, otherCookie, CALLS));
  const beside = await besideExports;
  console.log("[bulkheads] exports held", JSON.stringify({ exportsHeld, beside }));

  // Attack 2: four callers posting 2 MB bodies with a bogus key for the whole phase.
  let refusing = true;
  const bogus = Promise.all(
    Array.from({ length: 4 }, async () => {
      let n = 0;
      while (refusing) {
        await bigPost(v1(setup.ext), 2_000_000, { authorization: "Bearer sk_bogus" }).catch(() => 0);
        n++;
      }
      return n;
    }),
  );
  const refusalFlood = percentiles(await listTimes(app.url, otherCookie, CALLS));
  refusing = false;
  const bogusCalls = (await bogus).reduce((a, b) => a + b, 0);
  console.log("[bulkheads] refusal flood", JSON.stringify({ refusalFlood, bogusCalls }));

  // Attack 3: the activity flood, four calls at a time for the whole phase, and the bulk run.
  flooding = true;
  const flood = startFlood(app.url, setup, 4, () => flooding);
  const bulk = await startBulkRun("cancel", { ids: held }, held.length, setup.attacker.user.id);
  const loud = await phase(otherCookie, other.user.email, password, other).finally(() => (flooding = false));
  const floodStatuses = await flood;
  for (;;) {
    const run = await getDb().bulkRun.findUniqueOrThrow({ where: { id: bulk.id } });
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
    refusals,
    exportsHeld,
    beside,
    refusalFlood: { ...refusalFlood, bogusCalls },
    attack: loud,
    ratios: {
      exportsHeldP95: ratio(exportsHeld.p95, quiet.list.p95),
      refusalFloodP95: ratio(refusalFlood.p95, quiet.list.p95),
      listP50: ratio(loud.list.p50, quiet.list.p50),
      listP95: ratio(loud.list.p95, quiet.list.p95),
      jobP95: ratio(loud.jobMs.p95, quiet.jobMs.p95),
    },
    exports: count(attack.exportStatuses),
    accompliceExports: attack.accompliceStatuses.map(count),
    keyExports: count(attack.keyExportStatuses),
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
      "## What a refusal costs the app (CPU per call, less the idle app's)",
      "",
      "| refused call | answers | app CPU ms / call | PostgreSQL CPU ms / call | wall ms / call |",
      "|---|---|---|---|---|",
      ...refusals.map(
        (r) => `| ${r.name} | ${r.statuses} | ${r.cpuMsPerCall} | ${r.postgresMsPerCall} | ${r.wallMsPerCall} |`,
      ),
      "",
      "## Another learner under each attack",
      "",
      "| another learner's `jobs.list` (" + CALLS + " calls) | p50 ms | p95 ms | p95 / quiet |",
      "|---|---|---|---|",
      `| quiet | ${quiet.list.p50} | ${quiet.list.p95} | 1 |`,
      `| (1) every export three accounts and a key can hold, unread | ${exportsHeld.p50} | ${exportsHeld.p95} | ${result.ratios.exportsHeldP95} |`,
      `| (2) four callers posting 2 MB with a bogus key (${bogusCalls} calls) | ${refusalFlood.p50} | ${refusalFlood.p95} | ${result.ratios.refusalFloodP95} |`,
      `| (3) (1) held, plus a key's activity flood and a bulk run | ${loud.list.p50} | ${loud.list.p95} | ${result.ratios.listP95} |`,
      "",
      `Beside attack (1), read to their end: ${beside.map((b, i) => `${["her own export", "the console's export of her", "the platform's export"][i]} ${b.status}${b.whole ? " whole" : " NOT whole"} (${b.bytes} bytes, ${b.ms} ms)`).join("; ")}.`,
      "",
      "## Attack (3) in detail",
      "",
      "| | quiet | under attack | ratio |",
      "|---|---|---|---|",
      `| another learner's \`jobs.list\`, p50 / p95 ms (${CALLS} calls) | ${quiet.list.p50} / ${quiet.list.p95} | ${loud.list.p50} / ${loud.list.p95} | ${result.ratios.listP50} / ${result.ratios.listP95} |`,
      `| ten jobs, created → succeeded, p50 / p95 ms (a reference Runtime) | ${quiet.jobMs.p50} / ${quiet.jobMs.p95} | ${loud.jobMs.p50} / ${loud.jobMs.p95} | — / ${result.ratios.jobP95} |`,
      `| sign-in (status, ms) | ${quiet.signIn.status}, ${quiet.signIn.ms} | ${loud.signIn.status}, ${loud.signIn.ms} | |`,
      `| readiness (status, ms) | ${quiet.ready.status}, ${quiet.ready.ms} | ${loud.ready.status}, ${loud.ready.ms} | |`,
      "",
      `The downloads held: the attacker's 12 tries of a 10 MB export (${result.exports}), each accomplice's 3 (${result.accompliceExports.join("; ")}), the key's 5 (${result.keyExports}). The flood: one key's activity calls of 1,000 reviews of one card, four at a time for the whole phase (${result.flood}); a bulk cancel of ${held.length} jobs (${cancelled} cancelled).`,
      "",
    ].join("\n"),
  );
  console.log(`[bulkheads] written: ${JSON.stringify(result.ratios)}`);
} finally {
  await runtime?.kill("SIGKILL");
  await app.stop();
  await closeDb();
  await dropDatabase(server.url.replace(/\/[^/]*$/, "/postgres"), database).catch(() => {});
  await server.stop();
}
