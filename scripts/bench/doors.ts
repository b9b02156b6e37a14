import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { startEmbeddedDb } from "../lib/embedded-db";
import { deployMigrations } from "../lib/migrator";
import { DATA_DIR } from "../lib/database-url";
import { ensureBuilt, freePort } from "../lib/app-server";
import { stopGroup, waitForHttp } from "../lib/processes";
import { clearJobs, insertJobs, seedBenchUser } from "./setup";
import { median } from "./stats";

/**
 * `npm run bench:doors`: the app's CPU per job through each door of the Runtime protocol, so the
 * choice of door stays measured. Each door serves the same production build on the same
 * database; one bench Runtime process (4 loops, claim → heartbeat → result, keep-alive) drains
 * DOORS_JOBS jobs; the app process's user+system CPU (from /proc) over the run ÷ jobs.
 * Writes bench-results/doors.json and doors.md.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const JOBS = Number(process.env.DOORS_JOBS ?? 2000);
const REPEATS = Number(process.env.DOORS_REPEATS ?? 3);
const port = Number(process.env.BENCH_PG_PORT ?? 54360);
const LOCK = path.join(ROOT, ".data", "next-build.lock");
const DOORS = [
  {
    name: "production server, short door (npm start: server/production-server.mjs → server/runtime-api/door.ts)",
    argv: [path.join(ROOT, "server", "production-server.mjs")],
  },
  {
    name: "App Router route handler (next start)",
    argv: [path.join(ROOT, "node_modules", "next", "dist", "bin", "next"), "start"],
  },
  {
    name: "former fast lane (custom server + node-http, scripts/bench/fast-lane-server.ts)",
    argv: ["--import", "tsx", path.join(import.meta.dirname, "fast-lane-server.ts")],
  },
];
const log = (m: string) => console.log(`[doors] ${m}`);
const DECISION = `Decisions. The App Router route handler is the only door, because the former fast lane loaded \`server/*\` a second time beside Next's bundle (two copies of every cache, \`instanceof AppError\` failing across them) and compiled TypeScript at boot. The production server's short door is that fast lane without those faults — it calls the serveRuntimeApi() that Next compiled and loaded (published by instrumentation.ts under a registered symbol, as the lifecycle already is), so every module exists once and nothing is compiled at boot; the App Router route stays the door under \`next dev\` and \`next start\`. The jobs/s column is from a shared, busy 2-core machine and is not comparable across rows; CPU per job is.`;

const database = `ajr_doors_${process.pid}`;
const pgServer = await startEmbeddedDb({ dir: path.join(DATA_DIR, `pg-bench-${port}`), port, database, fast: true });
const db = new pg.Client({ connectionString: pgServer.url });
const results: { door: string; cpuMsPerJob: number; jobsPerSecond: number; runs: number[] }[] = [];
try {
  await deployMigrations(pgServer.url);
  await db.connect();
  await seedBenchUser(db);
  process.env.DATABASE_URL = pgServer.url;
  const { createRuntimeKey } = await import("../../server/runtime-keys");
  const key = (await createRuntimeKey("doors")).key;
  ensureBuilt(log);
  for (const door of DOORS) {
    const appPort = await freePort();
    const app = spawn("flock", ["-s", LOCK, process.execPath, ...door.argv, "-p", String(appPort), "-H", "127.0.0.1"], {
      cwd: ROOT,
      detached: true,
      stdio: "ignore",
      env: {
        ...process.env,
        NODE_ENV: "production",
        ALLOW_GENERATED_SECRETS: "1",
        DB_POOL_MAX: "20",
        RUNTIME_POLL_INTERVAL_MS: "100",
        NEXT_TELEMETRY_DISABLED: "1",
      },
    });
    try {
      const url = `http://127.0.0.1:${appPort}`;
      await waitForHttp(`${url}/internal/runtime/openapi.json`, 240_000);
      const nodePid = childPid(app.pid!);
      // Warm-up: JIT, prepared statements, connection pool.
      await clearJobs(db);
      await insertJobs(db, 300);
      await drain(url, key);
      const cpu: number[] = [];
      const rates: number[] = [];
      for (let r = 0; r < REPEATS; r++) {
        await clearJobs(db);
        await insertJobs(db, JOBS);
        const before = cpuMs(nodePid);
        const t = performance.now();
        await drain(url, key);
        rates.push(JOBS / ((performance.now() - t) / 1000));
        cpu.push((cpuMs(nodePid) - before) / JOBS);
      }
      results.push({
        door: door.name,
        cpuMsPerJob: round(median(cpu)),
        jobsPerSecond: round(median(rates)),
        runs: cpu.map(round),
      });
      log(`${door.name}: ${round(median(cpu))} ms CPU per job, ${round(median(rates))} jobs/s`);
    } finally {
      await stopGroup(app);
    }
  }
} finally {
  await db.end().catch(() => {});
  const { closeDb } = await import("../../server/db");
  await closeDb();
  await pgServer.stop();
}
const at = new Date().toISOString();
fs.mkdirSync(path.join(ROOT, "bench-results"), { recursive: true });
fs.writeFileSync(
  path.join(ROOT, "bench-results", "doors.json"),
  JSON.stringify({ at, jobs: JOBS, repeats: REPEATS, results }, null, 2) + "\n",
);
fs.writeFileSync(
  path.join(ROOT, "bench-results", "doors.md"),
  [
    "# App CPU per job, by door of the Runtime protocol",
    "",
    `\`npm run bench:doors\`: ${JOBS} jobs per run (claim → heartbeat → result, one bench Runtime with 4 loops, keep-alive), median of ${REPEATS} runs, app process user+system CPU from /proc. ${at}.`,
    "",
    "| door | app CPU per job | jobs/s | runs (ms/job) |",
    "|---|---|---|---|",
    ...results.map((r) => `| ${r.door} | ${r.cpuMsPerJob} ms | ${r.jobsPerSecond} | ${r.runs.join(", ")} |`),
    "",
    DECISION,
    "",
  ].join("\n"),
);
process.exit(0);

function round(n: number) {
  return Math.round(n * 100) / 100;
}

/** The node process flock started (flock runs its command as a child). */
function childPid(flockPid: number): number {
  const children = fs
    .readFileSync(`/proc/${flockPid}/task/${flockPid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .map(Number);
  if (!children[0]) throw new Error("app process not found");
  return children[0];
}

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks at 100 Hz
}

/** One bench Runtime process (scripts/bench/worker.ts) until the queue is empty. */
function drain(url: string, key: string) {
  return new Promise<void>((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      ["--import", "tsx", path.join(import.meta.dirname, "worker.ts"), "claim"],
      {
        env: { ...process.env, BENCH_URL: url, BENCH_KEY: key, BENCH_ID: "doors", BENCH_CONCURRENCY: "4" },
        stdio: ["pipe", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout!.on("data", (c) => {
      out += c;
      if (out === "ready\n") child.stdin!.end("go\n"); // one round, then it exits
    });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`bench Runtime exited ${code}`))));
  });
}
