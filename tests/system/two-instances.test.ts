import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import {
  prepareBulkheadAttack,
  startBulkheadAttack,
  listTimes,
  othersExports,
} from "../../scripts/lib/bulkhead-attack";
import { createLearner, runtimeKey } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { setPassword, signedInCookie } from "../helpers/auth";
import { spawnRuntime, type RuntimeProcess } from "./runtime-process";
import { countStatus, createJobs, expectSucceededOnce } from "./jobs";
import { getDb } from "@/server/db";

// Both instances (and this process, which signs the learner in) share one auth secret, as a
// deployment of several instances does.
process.env.BETTER_AUTH_SECRET ??= crypto.randomBytes(32).toString("base64url");

const apps: AppServer[] = [];
const runtimes: RuntimeProcess[] = [];

beforeAll(async () => {
  const env = { BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET!, SWEEP_INTERVAL_MS: "2000" };
  apps.push(await startAppServer({ databaseUrl: process.env.DATABASE_URL!, env }));
  apps.push(await startAppServer({ databaseUrl: process.env.DATABASE_URL!, env }));
});
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
  await Promise.all(apps.map((a) => a.stop()));
});

/** Reads an SSE stream in the background, collecting `event: job` payloads. */
function watch(url: string, cookie: string) {
  const changes: { id: string; status: string; progress: number; stage: string | null }[] = [];
  const abort = new AbortController();
  const ready = (async () => {
    const res = await fetch(url, { headers: { cookie }, signal: abort.signal });
    if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
    return res.body!;
  })();
  const reading = ready.then(async (body) => {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const frames = buffer.split("\n\n");
        buffer = frames.pop()!;
        for (const frame of frames) {
          const data = frame.split("\n").find((l) => l.startsWith("data: "));
          if (frame.includes("event: job") && data) changes.push(JSON.parse(data.slice(6)));
        }
      }
    } catch {
      // aborted
    }
  });
  return { changes, ready, stop: () => (abort.abort(), reading) };
}

describe("[SYSTEM] two app instances on one database", () => {
  it("Runtimes spread over both finish every job once, and a learner watching either instance sees every change", async () => {
    const learner = await createLearner();
    await setPassword(learner.user.id, "two-instances-pw");
    const cookie = await signedInCookie(learner.user.email, "two-instances-pw");
    const streams = apps.map((a) => watch(`${a.url}/api/jobs/events`, cookie));
    await Promise.all(streams.map((s) => s.ready));

    const key = await runtimeKey();
    for (const [i, app] of [apps[0]!, apps[1]!, apps[0]!, apps[1]!].entries())
      runtimes.push(
        spawnRuntime({ apiUrl: app.url, apiKey: key, env: { RUNTIME_LOCAL_DELAY_MS: String(20 + i * 10) } }),
      );
    const ids = await createJobs([learner], 40);

    for (const [i, s] of streams.entries()) {
      await eventually(
        `instance ${i + 1} pushed every job's success`,
        async () => {
          const done = new Set(s.changes.filter((c) => c.status === "succeeded").map((c) => c.id));
          return ids.every((id) => done.has(id)) || null;
        },
        120_000,
      );
    }
    await Promise.all(streams.map((s) => s.stop()));

    const { problems } = await expectSucceededOnce(ids);
    expect(problems).toEqual([]);
    // Both instances carried Runtime traffic: each pair of Runtimes finished some of the jobs.
    const count = () =>
      runtimes.map((r) => r.events.filter((e) => e.event === "job.succeeded" && ids.includes(e.jobId!)).length);
    // A Runtime logs a success after the API's answer, so its last lines may trail the database.
    await eventually("40 successes logged", async () => count().reduce((a, b) => a + b, 0) >= 40 || null, 30_000);
    const perRuntime = count();
    expect(perRuntime[0]! + perRuntime[2]!).toBeGreaterThan(0);
    expect(perRuntime[1]! + perRuntime[3]!).toBeGreaterThan(0);
    expect(perRuntime.reduce((a, b) => a + b, 0)).toBe(40);
    // Each stream saw the whole life of the jobs made through the other instance: created, running with progress, succeeded.
    for (const s of streams) {
      const first = s.changes.filter((c) => c.id === ids[0]);
      expect(first.map((c) => c.status)).toEqual(expect.arrayContaining(["pending", "locked", "running", "succeeded"]));
      expect(first.some((c) => c.status === "running" && c.progress > 0 && c.stage)).toBe(true);
    }
  });
});

const p95 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(ms.length * 0.95) - 1]!;

describe("[SYSTEM] bulkheads: one tenant's worst leaves the others their service", () => {
  it("three accounts and a key holding every export they can, a key's ingestion flood and a bulk run: each tenant gets what it is owed, the others' exports complete, readiness green, nothing lost", async () => {
    const app = apps[0]!;
    // This test's own Runtime starts once the attacker's jobs are held back from it.
    await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
    const password = "bulkheads-pw-1";
    // The bulk run's scope: 120 of the attacker's jobs, held back from the Runtimes.
    const setup = await prepareBulkheadAttack({ url: app.url, password, heldJobs: 120, label: "test" });
    const { other, otherCookie, held, ext } = setup;
    runtimes.push(spawnRuntime({ apiUrl: app.url, apiKey: await runtimeKey() }));
    expect(setup.learnerStatus).toBe(201);

    await listTimes(app.url, otherCookie, 5); // warm
    const quiet = p95(await listTimes(app.url, otherCookie, 30));

    // The attack, held open by readers that never read: every download the attacker, two
    // accomplices and a key can open, sixteen calls of 1,000 reviews of one card, a bulk run.
    const attack = await startBulkheadAttack(app.url, setup, { floodCalls: 16 });
    // Each tenant got its own share and no more: served up to its cap, then refused 429.
    expect(attack.exportStatuses.filter((s) => s === 200)).toHaveLength(2);
    expect(attack.exportStatuses.filter((s) => s === 429)).toHaveLength(10);
    // (The tries of one tenant race each other: which of them is refused varies, how many does not.)
    const sorted = (s: number[]) => [...s].sort((a, b) => a - b);
    expect(attack.accompliceStatuses.map(sorted)).toEqual([
      [200, 200, 429],
      [200, 200, 429],
    ]);
    expect(sorted(attack.keyExportStatuses)).toEqual([200, 200, 200, 200, 429]);
    // While all of that is held open, the others' exports are served, whole.
    const beside = await othersExports(app.url, setup);
    expect(beside.map((e) => [e.status, e.whole])).toEqual([
      [200, true],
      [200, true],
      [200, true],
    ]);
    const work = await createJobs([other], 10);
    const loud = p95(await listTimes(app.url, otherCookie, 30));

    expect((await fetch(`${app.url}/api/health/ready`)).status).toBe(200);
    const signIn = await fetch(`${app.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.url },
      body: JSON.stringify({ email: other.user.email, password }),
    });
    expect(signIn.status).toBe(200);
    const floodStatuses = await attack.flood;
    // Refused, never failed: the card cap (409), then the key held back or at its cap (429), no 5xx.
    expect(floodStatuses).toContain(409);
    expect(floodStatuses.every((s) => s === 409 || s === 429)).toBe(true);
    const flooded = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
    expect(await getDb().reviewLog.count({ where: { userId: flooded.id } })).toBe(0);

    await eventually(
      "the other learner's jobs succeeded",
      async () => (await countStatus(work, "succeeded")) === 10,
      240_000,
    );
    expect((await expectSucceededOnce(work)).problems).toEqual([]);
    await eventually(
      "the bulk run finished",
      async () => (await getDb().bulkRun.findUniqueOrThrow({ where: { id: attack.bulk.id } })).status === "done",
      120_000,
    );
    expect(await countStatus(held, "cancelled")).toBe(held.length);
    attack.closeExports();
    // The latency ratio is the bench's to report (npm run bench:bulkheads), not a pass mark here.
    console.log(
      `[bulkheads] other learner's jobs.list p95: quiet ${quiet.toFixed(1)} ms, under attack ${loud.toFixed(1)} ms (x${(loud / quiet).toFixed(2)})`,
    );
  });
});
