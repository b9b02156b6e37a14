import crypto from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { createLearner, runtimeKey, uid } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { setPassword, signedInCookie } from "../helpers/auth";
import { spawnRuntime, type RuntimeProcess } from "./runtime-process";
import { countStatus, createJobs, expectSucceededOnce } from "./jobs";
import { getDb } from "@/server/db";
import { startBulkRun } from "@/server/admin/bulk";
import { createServiceKey } from "@/server/platform/service-keys";

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

/** A GET of `path` over a raw socket that reads the answer's head and then stops reading. */
function neverRead(url: string, path: string, cookie: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const status = new Promise<number>((resolve, reject) => {
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1] ?? 0));
    });
    socket.once("error", reject);
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nCookie: ${cookie}\r\n\r\n`);
  return { status, socket };
}

const p95 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(ms.length * 0.95) - 1]!;

/** A learner's own list, `n` times one after another over HTTP: each call's milliseconds. */
async function listTimes(url: string, cookie: string, n: number) {
  const ms: number[] = [];
  const input = encodeURIComponent(JSON.stringify({}));
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(`${url}/api/trpc/jobs.list?input=${input}`, { headers: { cookie } });
    await res.text();
    expect(res.status).toBe(200);
    ms.push(performance.now() - t);
  }
  return ms;
}

describe("[SYSTEM] bulkheads: one tenant's worst leaves the others their service", () => {
  it("12 never-read exports, a key's ingestion flood and a bulk run: another learner's p95 within 2x of quiet, readiness green, nothing lost", async () => {
    const app = apps[0]!;
    // This test's own Runtime starts once the attacker's jobs are held back from it.
    await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
    const password = "bulkheads-pw-1";
    const [attacker, other] = [await createLearner(), await createLearner()];
    for (const l of [attacker, other]) await setPassword(l.user.id, password);
    const [attackerCookie, otherCookie] = [
      await signedInCookie(attacker.user.email, password),
      await signedInCookie(other.user.email, password),
    ];
    // A 10 MB export: 50 materials of 200 KB.
    const text = "Chlorophyll absorbs red and blue light. ".repeat(6000).slice(0, 200 * 1024);
    await getDb().material.createMany({
      data: Array.from({ length: 50 }, (_, i) => ({ userId: attacker.user.id, title: `M${i}`, content: text })),
    });
    // The bulk run's scope: the attacker's jobs, held back from the Runtimes.
    const held = await createJobs([attacker], 120);
    await getDb().aiRuntimeJob.updateMany({
      where: { id: { in: held } },
      data: { runAfter: new Date(Date.now() + 86_400_000) },
    });
    runtimes.push(spawnRuntime({ apiUrl: app.url, apiKey: await runtimeKey() }));
    const key = (await createServiceKey(uid("svc"), ["learners:write", "activity:write"], "test")).key;
    const ext = uid("ext");
    const put = await fetch(`${app.url}/api/v1/learners/${ext}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Flood" }),
    });
    expect(put.status).toBe(201);

    await listTimes(app.url, otherCookie, 5); // warm
    const quiet = p95(await listTimes(app.url, otherCookie, 30));

    // The attack: twelve downloads nobody reads, sixteen calls of 1,000 reviews of one card, a bulk run.
    const downloads = Array.from({ length: 12 }, () => neverRead(app.url, "/api/account/export", attackerCookie));
    const statuses = await Promise.all(downloads.map((d) => d.status));
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const reviews = Array.from({ length: 1000 }, (_, i) => ({
      externalId: `flood-${i}`,
      cardExternalId: "one-card",
      front: "F",
      back: "B",
      rating: "good",
      reviewedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    }));
    const flood = Promise.all(
      Array.from({ length: 16 }, () =>
        fetch(`${app.url}/api/v1/learners/${ext}/activity`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ reviews }),
        }).then(async (r) => (await r.text(), r.status)),
      ),
    );
    const bulk = await startBulkRun("cancel", { ids: held }, held.length, attacker.user.id);
    const work = await createJobs([other], 10);
    const loud = p95(await listTimes(app.url, otherCookie, 30));

    expect((await fetch(`${app.url}/api/health/ready`)).status).toBe(200);
    const signIn = await fetch(`${app.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.url },
      body: JSON.stringify({ email: other.user.email, password }),
    });
    expect(signIn.status).toBe(200);
    const floodStatuses = await Promise.all([flood]).then(([s]) => s);
    // Refused, never failed: the card cap or the key's cap, no 5xx.
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
      async () => (await getDb().bulkRun.findUniqueOrThrow({ where: { id: bulk.id } })).status === "done",
      120_000,
    );
    expect(await countStatus(held, "cancelled")).toBe(held.length);
    for (const d of downloads) d.socket.destroy();
    console.log(
      `[bulkheads] other learner's jobs.list p95: quiet ${quiet.toFixed(1)} ms, under attack ${loud.toFixed(1)} ms (x${(loud / quiet).toFixed(2)})`,
    );
    expect(loud).toBeLessThanOrEqual(2 * quiet);
  });
});
