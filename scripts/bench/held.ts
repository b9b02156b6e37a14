import fs from "node:fs";
import path from "node:path";
import { onOwnDb } from "./own-db";
import { insertJobs, seedBenchUser } from "./setup";
import { percentiles } from "./stats";
import { loadAverage } from "./cpu";

/**
 * `npm run bench:held`: a claim's cost against the number of leases held on time (jobs running
 * on other Runtimes, taken minutes ago, heartbeating). Claim and poll end passed leases in the
 * statement that takes jobs (docs/contract.md#states-and-transitions); this shows whether that search costs the leases near their
 * end or every lease held. One client calls claimJobs (the code the Runtime API runs) 500 times
 * after 50 warm-ups at each count, on its own server (port BENCH_HELD_PG_PORT, default 54362).
 * Writes bench-results/held.json and held.md.
 */
const COUNTS = (process.env.BENCH_HELD_COUNTS ?? "0,2000,20000").split(",").map(Number);
const port = Number(process.env.BENCH_HELD_PG_PORT ?? 54362);
const out: { held: number; claimMs: ReturnType<typeof percentiles>; loadAverage: number[] }[] = [];
await onOwnDb({ name: "held", port }, async (db) => {
  await seedBenchUser(db);
  const { claimJobs } = await import("../../server/jobs/lease");
  for (const held of COUNTS) {
    await db.query(`TRUNCATE "AiRuntimeJob" CASCADE`);
    // Taken ten minutes ago by another Runtime, lease ending in a minute: on time.
    if (held)
      await insertJobs(db, held, {
        status: "running",
        lockedBy: "other",
        lockUntilSql: "now() + interval '60 seconds'",
      });
    await insertJobs(db, 600);
    await db.query(`VACUUM ANALYZE "AiRuntimeJob"`);
    const samples: number[] = [];
    for (let i = 0; i < 550; i++) {
      const t = performance.now();
      const jobs = await claimJobs({
        runtimeInstanceId: "held",
        keyId: null,
        capabilities: ["learning_state_analysis"],
        limit: 1,
      });
      if (!jobs.length) throw new Error("queue empty");
      if (i >= 50) samples.push(performance.now() - t);
    }
    out.push({ held, claimMs: percentiles(samples), loadAverage: loadAverage() });
    console.log(
      `[held] ${held} leases held: claim p50 ${out.at(-1)!.claimMs.p50} ms, p99 ${out.at(-1)!.claimMs.p99} ms`,
    );
  }
  const dir = path.resolve(import.meta.dirname, "../../bench-results");
  fs.writeFileSync(
    path.join(dir, "held.json"),
    JSON.stringify({ at: new Date().toISOString(), runs: out }, null, 2) + "\n",
  );
  fs.writeFileSync(
    path.join(dir, "held.md"),
    [
      "# A claim against the leases held on time",
      "",
      `\`npm run bench:held\` (${new Date().toISOString()}): claimJobs in process, limit 1, 500 calls after 50 warm-ups, 600 pending jobs; the held leases were taken ten minutes ago and end in a minute.`,
      "",
      "| leases held | claim p50 / p95 / p99 ms | load |",
      "|---|---|---|",
      ...out.map(
        (r) =>
          `| ${r.held.toLocaleString("en")} | ${r.claimMs.p50} / ${r.claimMs.p95} / ${r.claimMs.p99} | ${r.loadAverage.join(" ")} |`,
      ),
      "",
    ].join("\n"),
  );
});
process.exit(0);
