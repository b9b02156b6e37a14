import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { percentiles } from "./stats";
import { JOB_TYPES, targetTypesOf } from "../../server/job-types";
import { output as RESULT_OUTPUT } from "./payload";
import { claimAtSize, tableSizes, type TableSize } from "./scale";
import { spansBack } from "./setup";

/**
 * "Console at 1M rows": a learning platform's 30 days — BENCH_CONSOLE_ROWS jobs (default
 * 1,000,000) over 200 learners, ≈3 events per job — then every console call over real HTTP as
 * the admin's browser makes it (session cookie, tRPC GET), 20 runs after 5 warm-ups each. For
 * comparison, the statements the console ran before the rollups (kept here verbatim) are timed
 * in the database on the same data: they are what the old calls cost at least.
 */
const USERS = 200;
const RUNTIMES = 8;
const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 40);
const WARMUP = 5;

type Ctx = {
  db: pg.Client;
  appUrl: string;
  agent: http.Agent;
  rows: number;
  log: (m: string) => void;
  dir: string;
  /** Keep the jobs already generated in this database (a re-run after a change, on the same data). */
  reuse?: boolean;
  /** A Runtime key: claim latency at this size. */
  key: string;
};
type Pcts = ReturnType<typeof percentiles>;
export type ConsoleResult = {
  jobs: number;
  events: number;
  loadSeconds: number;
  rollupCatchUpMs: number;
  runs: number;
  loadAverage?: number[];
  afterMs: Record<string, Pcts>;
  beforeStatementsMs: Record<string, Pcts>;
  /** Statements changed by a later round, old and new, timed in the same rounds. */
  changedMs?: Record<string, { before: Pcts; after: Pcts }>;
  /** The overview's calls with MOVING_EVENTS events past the watermark, as while jobs are moving. */
  movingMs?: Record<string, Pcts>;
  /** The tables' sizes at this many jobs, and a claim over HTTP on them (scale.ts). */
  sizes?: TableSize[];
  claimMs?: Pcts;
  at: string;
};

/** Runs the section and writes bench-results/console-<size>.{json,md} (also merged into latest.* by index.ts). */
const ratio = (a: number, b: number) => (b ? Math.round((a / b) * 10) / 10 : NaN);

export async function consoleBench(ctx: Ctx): Promise<ConsoleResult> {
  const result = await measure(ctx);
  fs.mkdirSync(ctx.dir, { recursive: true });
  // One file per table size (console-1m, console-100k…), so runs at several sizes show the cost not growing with the table.
  const size = ctx.rows >= 1e6 ? `${ctx.rows / 1e6}m` : `${Math.round(ctx.rows / 1e3)}k`;
  fs.writeFileSync(path.join(ctx.dir, `console-${size}.json`), JSON.stringify(result, null, 2) + "\n");
  fs.writeFileSync(
    path.join(ctx.dir, `console-${size}.md`),
    [`# Console at ${ctx.rows.toLocaleString("en")} jobs`, "", ...consoleMarkdown(result)].join("\n"),
  );
  return result;
}

export function consoleMarkdown(r: ConsoleResult): string[] {
  const names = Object.keys(r.afterMs);
  const ref = r.afterMs["job detail"];
  return [
    `Console with ${r.jobs.toLocaleString("en")} jobs and ${r.events.toLocaleString("en")} events (30 days, 200 learners), over HTTP with an admin session (the learner's list with the learner's), ${r.runs} interleaved rounds after warm-up (each round times every call once, so all share the same load; load average ${r.loadAverage?.join(" ") ?? "?"}); "before" is the statements the console used to run, timed in the database alone (so the old call cost at least that). Rollups' first catch-up over every event: ${r.rollupCatchUpMs} ms. ${r.at}.`,
    ``,
    ...(r.sizes && r.claimMs
      ? [
          `On disk (heap with TOAST + indexes, MB): ${r.sizes.map((t) => `${t.table} ${t.heapMb} + ${t.indexMb}`).join(", ")}. A claim over HTTP at this size (limit 1, 500 calls): p50 ${r.claimMs.p50} ms, p99 ${r.claimMs.p99} ms.`,
          ``,
        ]
      : []),
    `| console call | p50 / p95 ms | p50 / p95 ÷ job detail's | before (statements only) p50 / p95 ms |`,
    `|---|---|---|---|`,
    ...names.map(
      (n) =>
        `| ${n} | ${r.afterMs[n]!.p50} / ${r.afterMs[n]!.p95} | ${ref ? `${ratio(r.afterMs[n]!.p50, ref.p50)} / ${ratio(r.afterMs[n]!.p95, ref.p95)}` : "—"} | ${r.beforeStatementsMs[n] ? `${r.beforeStatementsMs[n]!.p50} / ${r.beforeStatementsMs[n]!.p95}` : "—"} |`,
    ),
    ``,
    ...(r.movingMs
      ? [
          `The same calls while jobs move: ${MOVING_EVENTS} events past the rollups' watermark (held there by an open transaction), which every read adds live; same rounds as above, ratio to the job detail of these rounds:`,
          ``,
          `| console call | p50 / p95 ms | p50 / p95 ÷ job detail's |`,
          `|---|---|---|`,
          ...Object.entries(r.movingMs).map(
            ([n, p]) =>
              `| ${n} | ${p.p50} / ${p.p95} | ${r.movingMs!["job detail"] ? `${ratio(p.p50, r.movingMs!["job detail"].p50)} / ${ratio(p.p95, r.movingMs!["job detail"].p95)}` : "—"} |`,
          ),
          ``,
        ]
      : []),
    ...(r.changedMs
      ? [
          `Statements changed since, old and new timed in the database in the same ${CHANGED_RUNS} interleaved rounds:`,
          ``,
          `| statement | before p50 / p95 ms | after p50 / p95 ms | after ÷ before (p50) |`,
          `|---|---|---|---|`,
          ...Object.entries(r.changedMs).map(
            ([n, c]) =>
              `| ${n} | ${c.before.p50} / ${c.before.p95} | ${c.after.p50} / ${c.after.p95} | ${ratio(c.after.p50, c.before.p50)} |`,
          ),
          ``,
        ]
      : []),
  ];
}

const CHANGED_RUNS = 30;
const MOVING_EVENTS = 200;

async function whileMoving<T>(db: pg.Client, fn: () => Promise<T>): Promise<T> {
  const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await holder.connect();
  const jobs = `SELECT id FROM "AiRuntimeJob" WHERE "inputHash" = 'h' AND status = 'succeeded' ORDER BY id DESC LIMIT ${MOVING_EVENTS}`;
  const insert = `INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
    SELECT id, 'locked', 'succeeded', 'runtime', 'bench-rt-moving', 1, now() FROM (${jobs}) j`;
  try {
    await holder.query("BEGIN");
    await holder.query(`${insert.replace(`LIMIT ${MOVING_EVENTS}`, "LIMIT 1")}`);
    await db.query(insert);
    return await fn();
  } finally {
    await holder.query("ROLLBACK").catch(() => {});
    await holder.end();
    await db.query(`DELETE FROM "JobEvent" WHERE "actorId" = 'bench-rt-moving'`);
  }
}

/**
 * The two statements the rollups replaced, old beside new on the same data: the 7d
 * overview's time series from half-hour rows (336 per kind) or six-hour rows (28), and the
 * Runtimes page's last 24 h as a scan of a day of events or from hourly rollups.
 */
async function changedStatements(db: pg.Client): Promise<Record<string, { before: Pcts; after: Pcts }>> {
  const { timeSeries } = await import("../../server/observability/rollups");
  const { recentByRuntime } = await import("../../server/admin/runtimes");
  const at = new Date();
  const week = new Date(Math.floor((at.getTime() - 7 * 86_400_000) / 21_600_000) * 21_600_000);
  const since = new Date(at.getTime() - 86_400_000);
  const pairs: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    ["overview 7d: time series", () => timeSeries(30, 360, week, at), () => timeSeries(360, 360, week, at)],
    [
      "Runtimes: last 24 h per instance",
      () =>
        db.query(
          `SELECT "actorId" AS id, count(*) FILTER (WHERE "toStatus" = 'succeeded')::int AS succeeded,
             count(*) FILTER (WHERE "errorCode" IS NOT NULL AND "errorCode" <> 'CANCELLED' AND "toStatus" IN ('pending', 'failed'))::int AS failed
           FROM "JobEvent" WHERE "actorType" = 'runtime' AND "createdAt" >= $1::timestamp(3) GROUP BY 1`,
          [since.toISOString().replace("Z", "")],
        ),
      () => recentByRuntime(since),
    ],
  ];
  const out: Record<string, { before: number[]; after: number[] }> = {};
  for (let i = 0; i < 3 + CHANGED_RUNS; i++)
    for (const [name, before, after] of pairs) {
      const o = (out[name] ??= { before: [], after: [] });
      // Alternate which goes first, so neither always meets a warmer cache.
      for (const [side, run] of (i % 2
        ? [
            ["after", after],
            ["before", before],
          ]
        : [
            ["before", before],
            ["after", after],
          ]) as ["before" | "after", () => Promise<unknown>][]) {
        const t = performance.now();
        await run();
        if (i >= 3) o[side].push(performance.now() - t);
      }
    }
  return Object.fromEntries(
    Object.entries(out).map(([n, s]) => [n, { before: percentiles(s.before), after: percentiles(s.after) }]),
  );
}

async function measure({ db, appUrl, agent, rows, log, reuse, key }: Ctx): Promise<ConsoleResult> {
  // The demo accounts first: learner 0 of the generated data is the demo learner Ada, so a real
  // learner session lists a learner's share of the million (1 in 200) through the learner's own API.
  const { seed } = await import("../../prisma/seed");
  const { ADMIN, LEARNERS, DEMO_PASSWORDS } = await import("../../prisma/seed-data");
  await seed();
  const learner = LEARNERS[0]!;
  const have = (await db.query(`SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE "inputHash" = 'h'`)).rows[0].n;
  const t0 = performance.now();
  if (!reuse || have !== rows) {
    log(`console: generating ${rows.toLocaleString("en")} jobs and their events over 30 days…`);
    // Usage rows have no foreign key to their job, so clearing the jobs left them (and their rollups).
    await db.query(
      `TRUNCATE "AiRuntimeJob", "JobUsage", "UsageDayRollup", "UsageDayLearner", "UsageDayClosed", "UsageHourRollup", "UsageHourLearner", "UsageHourClosed",
        "ConsoleRollupState", "JobCountRollup", "JobTimeRollup", "RuntimeHourRollup", "RuntimeInstance" CASCADE`,
    );
    await spansBack(db, SPAN_DAYS + 1);
    await generate(db, rows, learner.id);
  } else log(`console: reusing the ${rows.toLocaleString("en")} jobs already in the database`);
  const loadMs = performance.now() - t0;
  log(`console: data ready in ${Math.round(loadMs / 1000)} s`);
  const [{ events }] = (await db.query(`SELECT count(*)::int AS events FROM "JobEvent"`)).rows;
  await db.query(`VACUUM ANALYZE "AiRuntimeJob"`);
  await db.query(`VACUUM ANALYZE "JobEvent"`);
  await db.query(`VACUUM ANALYZE "JobUsage"`);
  await db.query(`VACUUM ANALYZE "AiRuntimeResult"`);
  await db.query(`CHECKPOINT`);
  const sizes = await tableSizes(db);
  log(`console: sizes ${JSON.stringify(sizes)}`);

  // The rollups' first catch-up over every event (a one-off at deployment), then steady state.
  const { advanceRollups } = await import("../../server/observability/rollups");
  const t1 = performance.now();
  const max = BigInt((await db.query(`SELECT max(id)::text AS m FROM "JobEvent"`)).rows[0].m);
  for (let r = await advanceRollups({ recount: true }); BigInt(r.eventId) < max; r = await advanceRollups())
    await new Promise((res) => setTimeout(res, 100));
  const catchUpMs = performance.now() - t1;
  log(`console: ${events} events folded into rollups in ${Math.round(catchUpMs)} ms`);

  const cookie = await signIn(appUrl, agent, ADMIN.email, DEMO_PASSWORDS.admin);
  const learnerCookie = await signIn(appUrl, agent, learner.email, DEMO_PASSWORDS.learner);
  const token = "bench-metrics-token";
  const sample = (
    await db.query(`SELECT id, "userId" FROM "AiRuntimeJob" ORDER BY id LIMIT 1 OFFSET $1`, [Math.floor(rows / 2) + 1])
  ).rows[0];
  const trpc = (path: string, input?: unknown) =>
    `${appUrl}/api/trpc/${path}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;
  const calls: [string, string, Record<string, string>][] = [
    ["explorer: search by job id", trpc("admin.explorer.list", { filter: { q: sample.id } }), { cookie }],
    [
      "explorer: search by learner email",
      trpc("admin.explorer.list", { filter: { q: `${sample.userId}@bench.test` } }),
      { cookie },
    ],
    ["explorer: first page", trpc("admin.explorer.list", {}), { cookie }],
    [
      "explorer: failed, one type",
      trpc("admin.explorer.list", { filter: { status: ["failed"], jobType: ["quiz_generation"] } }),
      { cookie },
    ],
    ["explorer: count (capped)", trpc("admin.explorer.count", { filter: { status: ["succeeded"] } }), { cookie }],
    ["job detail", trpc("admin.explorer.detail", { jobId: sample.id }), { cookie }],
    // The learner page's own list, as its browser asks for it (components/learner/learner-page.tsx).
    ["learner: job list", trpc("jobs.list", { pageSize: 20 }), { cookie: learnerCookie }],
    ["overview 1h", trpc("admin.monitor.overview", { window: "1h" }), { cookie }],
    ["overview 24h", trpc("admin.monitor.overview", { window: "24h" }), { cookie }],
    ["overview 7d", trpc("admin.monitor.overview", { window: "7d" }), { cookie }],
    ["costs (14 days)", trpc("admin.monitor.costs"), { cookie }],
    ["alerts", trpc("admin.monitor.alerts"), { cookie }],
    // What the overview page asks for on load, as its browser sends it: one tRPC batch.
    [
      "overview page (batch: overview 1h + costs + alerts)",
      `${appUrl}/api/trpc/admin.monitor.overview,admin.monitor.costs,admin.monitor.alerts?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { window: "1h" } }))}`,
      { cookie },
    ],
    ["Runtimes", trpc("admin.monitor.runtimes"), { cookie }],
    ["/api/metrics", `${appUrl}/api/metrics`, { authorization: `Bearer ${token}` }],
  ];
  // Every call on its own, interleaved: each round times every call once, in an order rotated by
  // the round, so all calls share the same moments of the (possibly busy) machine and their ratios
  // to the job detail and the learner's job list — measured in the same rounds — carry across loads.
  for (const [name, url, headers] of calls)
    for (let i = 0; i < WARMUP; i++) {
      const res = await get(agent, url, headers);
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.text.slice(0, 300)}`);
    }
  const rounds = async (list: typeof calls, label: string) => {
    const samples: Record<string, number[]> = Object.fromEntries(list.map(([n]) => [n, []]));
    for (let r = 0; r < RUNS; r++)
      for (let k = 0; k < list.length; k++) {
        const [name, url, headers] = list[(k + r) % list.length]!;
        const t = performance.now();
        const res = await get(agent, url, headers);
        if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.text.slice(0, 300)}`);
        samples[name]!.push(performance.now() - t);
      }
    const out: Record<string, Pcts> = {};
    for (const [name] of list) {
      out[name] = percentiles(samples[name]!);
      log(`console${label}: ${name} p50 ${out[name].p50} ms, p95 ${out[name].p95} ms`);
    }
    return out;
  };
  const after = await rounds(calls, "");
  // While jobs move: the reads add the events past the watermark live. A transaction holds an event
  // open (the fold never passes it: a real control, not a race with the rollup loop), and
  // MOVING_EVENTS committed events follow it, so every read below finds that many past the watermark.
  const moving = await whileMoving(db, () =>
    rounds(
      calls.filter(([n]) => /overview|alerts|Runtimes|metrics|job detail|learner/.test(n)),
      " (jobs moving)",
    ),
  );

  const before: Record<string, Pcts> = {};
  // BENCH_CONSOLE_LEGACY=0 skips them (a re-run after a change of the console, on the same data).
  for (const [name, statements] of process.env.BENCH_CONSOLE_LEGACY === "0" ? [] : legacy(sample.id)) {
    const samples: number[] = [];
    for (let i = 0; i < 2 + 10; i++) {
      const t = performance.now();
      await Promise.all(statements.map((s) => db.query(s)));
      if (i >= 2) samples.push(performance.now() - t);
    }
    before[name] = percentiles(samples);
    log(`console (before): ${name} p50 ${before[name].p50} ms, p95 ${before[name].p95} ms`);
  }
  const changed = await changedStatements(db);
  for (const [n, c] of Object.entries(changed))
    log(`console (changed): ${n} before p50 ${c.before.p50} ms, after p50 ${c.after.p50} ms`);
  // Last: its claims leave 500 jobs locked.
  const claimMs = await claimAtSize(db, appUrl, key, agent);
  log(`console: claim at ${rows.toLocaleString("en")} jobs p50 ${claimMs.p50} ms, p99 ${claimMs.p99} ms`);
  return {
    jobs: rows,
    events,
    loadSeconds: Math.round(loadMs / 1000),
    rollupCatchUpMs: Math.round(catchUpMs),
    runs: RUNS,
    loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
    afterMs: after,
    beforeStatementsMs: before,
    changedMs: changed,
    movingMs: moving,
    sizes,
    claimMs,
    at: new Date().toISOString(),
  };
}

const SPAN_DAYS = 30;

/**
 * A job id as the app makes it (a cuid starts with its creation time, server/jobs/partitions.ts) for
 * the time `ms` (an SQL bigint expression), then a unique tail: so a generated job sits in the time
 * partition of its creation, as a real one does.
 */
function idSql(ms: string, tail: string) {
  const digits = Array.from({ length: 8 }, (_, i) => 7 - i).map(
    (k) => `substr('0123456789abcdefghijklmnopqrstuvwxyz', ((${ms}) / ${36 ** k}::bigint % 36)::int + 1, 1)`,
  );
  return `'c' || ${digits.join(" || ")} || ${tail}`;
}

/** Jobs spread over 30 days; each has a creation event, and (unless still pending) a lock and a terminal event. */
export async function generate(db: pg.Client, rows: number, learnerId: string) {
  // The Runtime instances that did the work (their events name them, as real ones do).
  await db.query(`INSERT INTO "RuntimeInstance" (id, capabilities, version, "firstSeenAt", "lastSeenAt")
    SELECT 'bench-rt-' || g, ARRAY[]::text[], 'bench', now() - interval '30 days', now() FROM generate_series(0, ${RUNTIMES - 1}) g ON CONFLICT DO NOTHING`);
  await db.query(`INSERT INTO "User" (id, email, name, role, "emailVerified", "createdAt", "updatedAt")
    SELECT 'bu' || g, 'bu' || g || '@bench.test', 'Bench ' || g, 'learner', false, now(), now() FROM generate_series(1, ${USERS - 1}) g ON CONFLICT DO NOTHING`);
  const user = `(CASE WHEN g % ${USERS} = 0 THEN '${learnerId}' ELSE 'bu' || (g % ${USERS}) END)`;
  const span = SPAN_DAYS * 86_400;
  const end = Date.now();
  await db.query(`CREATE TEMP TABLE IF NOT EXISTS chunk (id text PRIMARY KEY)`);
  for (let from = 0; from < rows; from += 200_000) {
    const to = Math.min(rows, from + 200_000) - 1;
    await db.query(`TRUNCATE chunk`);
    // status by g: 2,000 newest pending, else 1 in 12 failed, 1 in 40 cancelled, the rest succeeded.
    await db.query(`
      WITH made AS (
      INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", status, "inputHash", "idempotencyKey", params,
        "attemptNo", "errorCode", "createdAt", "updatedAt", "runAfter", "lockedAt", "finishedAt")
      SELECT ${idSql(`(extract(epoch FROM c) * 1000)::bigint`, `lpad(g::text, 10, '0')`)}, ${user},
        (ARRAY[${JOB_TYPES.map((t) => `'${t}'`).join(",")}])[1 + g % ${JOB_TYPES.length}]::"JobType",
        -- A type that runs on materials only gets a material target (its id only: the console never opens it).
        (ARRAY[${JOB_TYPES.map((t) => `'${targetTypesOf(t).includes("user") ? "user" : "material"}'`).join(",")}])[1 + g % ${JOB_TYPES.length}]::"TargetType",
        ${user}, s::"JobStatus", 'h', 'ck' || g, '{}',
        CASE WHEN s IN ('succeeded', 'failed') THEN 1 ELSE 0 END, CASE WHEN s = 'failed' THEN 'INVALID_SCHEMA' WHEN s = 'cancelled' THEN 'CANCELLED' END,
        c, c, c, CASE WHEN s IN ('succeeded', 'failed') THEN c + w END, CASE WHEN s <> 'pending' THEN c + w + r END
      FROM (SELECT g, to_timestamp(${end / 1000}) - interval '${span} seconds' + (g::float8 / ${rows}) * interval '${span} seconds' AS c,
              (0.2 + (g % 97) * 0.3) * interval '1 second' AS w, (1 + (g % 89) * 0.5) * interval '1 second' AS r,
              CASE WHEN g >= ${rows - 2000} THEN 'pending' WHEN g % 12 = 0 THEN 'failed' WHEN g % 40 = 0 THEN 'cancelled' ELSE 'succeeded' END AS s
            FROM generate_series(${from}, ${to}) g) x
      RETURNING id)
      INSERT INTO chunk SELECT id FROM made`);
    // Fresh statistics before the events' foreign-key checks plan their lookup of the job (once per
    // connection). A 3M generation on a database reused after a TRUNCATE sat 15 minutes in its
    // first chunk's event insert; a check planned against a table that looked empty is the suspect.
    await db.query(`ANALYZE "AiRuntimeJob"`);
    await db.query(`ANALYZE chunk`);
    const inChunk = `SELECT j.* FROM chunk k JOIN "AiRuntimeJob" j ON j.id = k.id`;
    await db.query(`
      INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "createdAt")
      SELECT id, f::"JobStatus", t::"JobStatus", a::"ActorType",
        CASE WHEN a = 'runtime' THEN 'bench-rt-' || (abs(hashtext(id)) % ${RUNTIMES}) END, n, at FROM (
        SELECT id, NULL AS f, 'pending' AS t, 'learner' AS a, 0 AS n, "createdAt" AS at FROM (${inChunk}) j
        UNION ALL SELECT id, 'pending', 'locked', 'runtime', 1, "lockedAt" FROM (${inChunk}) j WHERE "lockedAt" IS NOT NULL
        UNION ALL SELECT id, CASE WHEN status = 'cancelled' THEN 'pending' ELSE 'locked' END, status::text, 'runtime', "attemptNo", "finishedAt"
          FROM (${inChunk}) j WHERE "finishedAt" IS NOT NULL
      ) e ORDER BY at`);
    // A succeeded job's result (a minimal valid output: real outputs are larger, see tableSizes).
    await db.query(`
      INSERT INTO "AiRuntimeResult" (id, "jobId", "attemptNo", output, "outputHash", "outputSchemaVersion", "createdAt")
      SELECT 'cr' || id, id, 1, '${JSON.stringify(RESULT_OUTPUT)}'::jsonb, 'h', 'v1', "finishedAt"
      FROM (${inChunk}) j WHERE status = 'succeeded'`);
    // One usage row per attempt that reached the model (as Runtimes report it), for the cost panel.
    await db.query(`
      INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", provider, model,
        "promptTokens", "completionTokens", "durationMs", outcome, "createdAt")
      SELECT 'cu' || id, id, 1, "userId", "jobType", 'platform_key', 'deepseek', 'deepseek-chat',
        800 + (abs(hashtext(id)) % 1200), 200 + (abs(hashtext(id)) % 600), 900, coalesce("errorCode", 'succeeded'), "finishedAt"
      FROM (${inChunk}) j WHERE status IN ('succeeded', 'failed')`);
  }
}

/** The statements the console ran before the rollups (PR #17's "before"), verbatim in shape. */
function legacy(jobId: string): [string, string[]][] {
  const overview = (ms: number, bucket: string) => {
    const from = `now() - interval '${ms / 1000} seconds'`;
    return [
      `SELECT status::text, "jobType"::text, count(*)::int FROM "AiRuntimeJob" GROUP BY 1, 2`,
      `SELECT date_bin('${bucket}'::interval, j."finishedAt", ${from}) AS b, count(*) FILTER (WHERE j.status = 'succeeded')::int, count(*) FILTER (WHERE j.status = 'failed')::int,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM j."finishedAt" - j."lockedAt")), percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM j."finishedAt" - j."lockedAt"))
       FROM "AiRuntimeJob" j WHERE j."finishedAt" >= ${from} AND j."finishedAt" <= now() AND j.status IN ('succeeded', 'failed') GROUP BY GROUPING SETS ((1), ())`,
      `SELECT date_bin('${bucket}'::interval, e."createdAt", ${from}) AS b, count(*)::int,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM e."createdAt" - j."createdAt")), percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM e."createdAt" - j."createdAt"))
       FROM "JobEvent" e JOIN "AiRuntimeJob" j ON j.id = e."jobId" WHERE e."createdAt" >= ${from} AND e."createdAt" <= now() AND e."toStatus" = 'locked' AND e."attemptNo" = 1 GROUP BY GROUPING SETS ((1), ())`,
    ];
  };
  return [
    [
      "explorer: search by job id",
      [
        `SELECT * FROM (SELECT * FROM "AiRuntimeJob" j WHERE (j.id = '${jobId}' OR j."idempotencyKey" = '${jobId}' OR j."userId" IN ('${jobId}')) ORDER BY j."createdAt" DESC, j.id DESC LIMIT 51) j`,
      ],
    ],
    ["overview 1h", overview(3_600_000, "1 minutes")],
    ["overview 24h", overview(86_400_000, "30 minutes")],
    ["overview 7d", overview(7 * 86_400_000, "360 minutes")],
    ["/api/metrics", [`SELECT status::text, "jobType"::text, count(*)::int FROM "AiRuntimeJob" GROUP BY 1, 2`]],
  ];
}

async function signIn(appUrl: string, agent: http.Agent, email: string, password: string): Promise<string> {
  const body = JSON.stringify({ email, password });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.request(
      `${appUrl}/api/auth/sign-in/email`,
      { method: "POST", agent, headers: { "content-type": "application/json", origin: appUrl } },
      resolve,
    );
    req.on("error", reject);
    req.end(body);
  });
  res.resume();
  const cookies = (res.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");
  if (res.statusCode !== 200 || !cookies) throw new Error(`sign-in of ${email} answered ${res.statusCode}`);
  return cookies;
}

function get(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "GET", agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}
