import fs from "node:fs";
import path from "node:path";
import { onOwnDb } from "./own-db";
import { insertJobs, seedBenchUser } from "./setup";
import { loadAverage } from "./cpu";

/**
 * `npm run bench:migration -- <migration folder name>`: how long one migration's script takes on a
 * job table of BENCH_MIGRATION_JOBS jobs (default 1,000,000; a fifth with non-empty params, as
 * generation jobs have), and how long a claim started beside it waits, on its own server
 * (BENCH_MIGRATION_PG_PORT, default 54363). The database is migrated to the latest state first; the
 * script is then run again as written (each migration here drops what it rebuilds), so it measures
 * what the migration costs a live instance of that size.
 */
const name = process.argv[2];
if (!name) throw new Error("usage: npm run bench:migration -- <prisma/migrations folder name>");
const script = fs.readFileSync(path.join("prisma/migrations", name, "migration.sql"), "utf8");
const JOBS = Number(process.env.BENCH_MIGRATION_JOBS ?? 1_000_000);
const port = Number(process.env.BENCH_MIGRATION_PG_PORT ?? 54363);
await onOwnDb({ name: "migration", port }, async (db) => {
  await seedBenchUser(db);
  for (let done = 0; done < JOBS; done += 100_000) await insertJobs(db, Math.min(100_000, JOBS - done));
  await db.query(`UPDATE "AiRuntimeJob" SET params = '{"count": 5}' WHERE right(id, 1) IN ('1', '6')`);
  await db.query(`VACUUM ANALYZE`);
  const { claimJobs } = await import("../../server/jobs/lease");
  const holder = { runtimeInstanceId: "migration-probe", keyId: null };
  await claimJobs({ ...holder, capabilities: ["learning_state_analysis"], limit: 1 }); // warm

  const t0 = performance.now();
  const migration = db.query(script).then(() => performance.now() - t0);
  await new Promise((r) => setTimeout(r, 50)); // the claim starts once the script holds its locks
  const c0 = performance.now();
  const claimed = await claimJobs({ ...holder, capabilities: ["learning_state_analysis"], limit: 1 });
  const claimMs = performance.now() - c0;
  const migrationMs = await migration;
  if (claimed.length !== 1) throw new Error("the claim beside the migration took no job");
  console.log(
    `[migration] ${name} on ${JOBS} jobs: ${Math.round(migrationMs)} ms; a claim started 50 ms in waited ${Math.round(claimMs)} ms (load average ${loadAverage().join(" ")})`,
  );
});
