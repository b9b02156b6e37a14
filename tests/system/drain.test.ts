import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { getDb } from "@/server/db";
import { createLearner, runtimeKey } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { spawnRuntime, type RuntimeProcess } from "./runtime-process";
import { countStatus, createJobs, expectSucceededOnce, TYPES } from "./jobs";

let app: AppServer;
const runtimes: RuntimeProcess[] = [];

beforeAll(async () => {
  app = await startAppServer({ databaseUrl: process.env.DATABASE_URL!, env: { SWEEP_INTERVAL_MS: "5000" } });
});
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
  await app?.stop();
});

describe("[SYSTEM] three Runtime processes drain the queue through the real app", () => {
  it("300 jobs of all five types: every job succeeded exactly once with a valid result", async () => {
    const learners = await Promise.all(Array.from({ length: 10 }, () => createLearner()));
    const ids = await createJobs(learners, 300);
    const key = await runtimeKey();

    const started = Date.now();
    for (let i = 0; i < 3; i++)
      runtimes.push(spawnRuntime({ apiUrl: app.url, apiKey: key, env: { RUNTIME_HEARTBEAT_MS: "5000" } }));
    await eventually("300 jobs succeeded", async () => (await countStatus(ids, "succeeded")) === 300 || null, 240_000);
    const drainMs = Date.now() - started;
    console.log(`[drain] 300 jobs, 3 Runtimes × 4 slots: ${drainMs} ms (${(300_000 / drainMs).toFixed(1)} jobs/s)`);

    const { problems, jobs } = await expectSucceededOnce(ids);
    expect(problems).toEqual([]);
    expect(new Set(jobs.map((j) => j.jobType))).toEqual(new Set(TYPES));
    expect(await getDb().aiRuntimeResult.count({ where: { jobId: { in: ids } } })).toBe(300);

    // All three took part, and the work they report matches the database.
    const idSet = new Set(ids);
    const byRuntime = () =>
      runtimes.map((r) => r.events.filter((e) => e.event === "job.succeeded" && idSet.has(e.jobId!)).length);
    // Each Runtime logs a success after the API's answer, so the last lines may trail the database.
    await eventually("300 successes logged", async () => byRuntime().reduce((a, b) => a + b, 0) >= 300);
    expect(byRuntime().every((n) => n > 0)).toBe(true);
    expect(byRuntime().reduce((a, b) => a + b, 0)).toBe(300);

    // None crashed; SIGTERM with nothing running ends each cleanly.
    expect(runtimes.every((r) => r.alive())).toBe(true);
    const exits = await Promise.all(runtimes.map((r) => r.kill("SIGTERM")));
    expect(exits.map((e) => e.code)).toEqual([0, 0, 0]);
  });
});
