import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { startEmbeddedDb } from "../lib/embedded-db";
import { deployMigrations } from "../lib/migrator";
import { DATA_DIR } from "../lib/database-url";
import { clearJobs, insertJobs, seedBenchUser } from "./setup";
import { outputFor, usage } from "./payload";
import { median } from "./stats";

/**
 * `npm run bench:tracing`: what OpenTelemetry costs the job engine's hot path. One process runs
 * claim(1) → result through the domain services (the statements every Runtime request ends in)
 * on the embedded PostgreSQL, in alternating rounds: traces off (no tracer provider: the API's
 * no-op, the engine's one flag) and on (the SDK batching spans over OTLP/HTTP to a local receiver,
 * a separate process that reads and discards them). Each round's jobs carry a trace context (as
 * jobs created with traces on do), so "on" makes a claim span and a succeed span per job.
 * Reports per round: ms per job (wall) and this process's CPU ms per job, and the medians.
 *
 * `TRACING_MODES=off` runs only the "off" rounds on jobs without a trace context (what a process
 * with traces off does): the same file run on a build from before tracing existed measures what
 * the off path costs (docs/performance.md "Traces on and off").
 *
 *   TRACING_JOBS (500 per round), TRACING_ROUNDS (3 of each), TRACING_MODES (off,on), BENCH_PG_PORT (54360)
 */
const JOBS = Number(process.env.TRACING_JOBS ?? 500);
const ROUNDS = Number(process.env.TRACING_ROUNDS ?? 3);
const MODES = (process.env.TRACING_MODES ?? "off,on").split(",").map((m) => m.trim() === "on");
const port = Number(process.env.BENCH_PG_PORT ?? 54360);
const log = (m: string) => console.log(`[tracing] ${m}`);

const receiver = spawn(
  process.execPath,
  [
    "-e",
    `const s = require("node:http").createServer((q, r) => { q.resume(); q.on("end", () => r.end("{}")); });
     s.listen(0, "127.0.0.1", () => console.log(s.address().port));`,
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const receiverPort = await new Promise<string>((resolve) =>
  receiver.stdout!.once("data", (b) => resolve(String(b).trim())),
);

const database = `ajr_tracing_${process.pid}`;
const pgServer = await startEmbeddedDb({ dir: path.join(DATA_DIR, `pg-bench-${port}`), port, database, fast: true });
const db = new pg.Client({ connectionString: pgServer.url });
try {
  await deployMigrations(pgServer.url);
  await db.connect();
  await seedBenchUser(db);
  process.env.DATABASE_URL = pgServer.url;
  const { claimJobs } = await import("../../server/jobs/lease");
  const { submitResult } = await import("../../server/jobs/results");
  // Imported only when "on" rounds run, so the file also runs on a build without tracing.
  const sdk = MODES.includes(true) ? await import("../../server/observability/tracing-sdk") : null;
  const { closeDb } = await import("../../server/db");

  async function round(traced: boolean) {
    await clearJobs(db);
    await insertJobs(db, JOBS);
    if (sdk)
      await db.query(
        `UPDATE "AiRuntimeJob" SET traceparent = '00-' || md5(id) || '-' || substr(md5(id || 's'), 1, 16) || '-01'`,
      );
    const tracing = traced
      ? sdk!.startTracing({
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}` },
          serviceName: "bench",
        })
      : null;
    if (traced && !tracing) throw new Error("tracing did not start");
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let done = 0; done < JOBS;) {
      const leases = await claimJobs({
        runtimeInstanceId: "bench",
        capabilities: ["learning_state_analysis"],
        limit: 1,
      });
      if (!leases.length) throw new Error(`queue empty after ${done} jobs`);
      for (const { job } of leases) {
        await submitResult(job.id, {
          runtimeInstanceId: "bench",
          attemptNo: job.attemptNo,
          output: outputFor(job.jobType),
          usage,
        });
        done++;
      }
    }
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    // The export of the round's spans is part of its cost: flushed inside the measurement.
    await tracing?.shutdown();
    const cpuAll = process.cpuUsage(cpu);
    return {
      traced,
      msPerJob: wall / JOBS,
      cpuMsPerJob: (used.user + used.system) / 1000 / JOBS,
      cpuMsPerJobWithExport: (cpuAll.user + cpuAll.system) / 1000 / JOBS,
    };
  }

  await round(false); // warm-up: plans, caches, JIT
  const results = [];
  for (let r = 0; r < ROUNDS; r++) for (const traced of MODES) results.push(await round(traced));
  for (const r of results)
    log(
      `${r.traced ? "on " : "off"}: ${r.msPerJob.toFixed(3)} ms/job, CPU ${r.cpuMsPerJob.toFixed(3)} ms/job (${r.cpuMsPerJobWithExport.toFixed(3)} with the export flushed)`,
    );
  for (const traced of [...new Set(MODES)]) {
    const mine = results.filter((r) => r.traced === traced);
    log(
      `median ${traced ? "on " : "off"}: ${median(mine.map((r) => r.msPerJob)).toFixed(3)} ms/job, CPU ${median(mine.map((r) => r.cpuMsPerJobWithExport)).toFixed(3)} ms/job (${JOBS} jobs × ${ROUNDS} rounds)`,
    );
  }
  await closeDb();
} finally {
  await db.end().catch(() => {});
  await pgServer.stop();
  receiver.kill();
}
