import { spawn } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { startHaproxy, type Haproxy } from "../../scripts/lib/haproxy";
import { startPgBouncer, type PgBouncer } from "../../scripts/lib/pgbouncer";
import { TERMINAL_STATUSES } from "@/server/jobs/constants";
import { getDb } from "@/server/db";
import { createLearner, createTestJob, runtimeKey, type Learner } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { spawnRuntimes, type RuntimeProcess } from "./runtime-process";
import { createJobs, expectSucceededOnce, outcomeViolations } from "./jobs";
import { openLearnerPage, pushes } from "./learner-page";

/**
 * The topology of docs/contract.md#deployment-shapes, rehearsed: HAProxy (deploy/haproxy.cfg) in front of three production
 * instances whose pooled DATABASE_URL is PgBouncer in transaction mode (deploy/pgbouncer.ini), their
 * sessions (LISTEN, claims, advisory locks) on DIRECT_DATABASE_URL; eight Runtimes and two learners
 * in Chromium, all through HAProxy. While jobs run, one instance is SIGKILLed, PgBouncer is stopped
 * and started again, and the instance comes back. Each state is held by what makes it (a process
 * that is down stays down until the test starts it), never by a timer.
 */
process.env.BETTER_AUTH_SECRET ??= crypto.randomBytes(32).toString("base64url");
// This process makes the jobs: on a machine this busy (three instances, eight Runtimes, a browser)
// a creation's transaction may wait longer than the default deadline for its turn on a core.
process.env.JOB_CREATE_TIMEOUT_MS = "60000";
const t0 = Date.now();
const step = (what: string) => console.log(`[topology] +${Math.round((Date.now() - t0) / 1000)} s: ${what}`);
const ROOT = path.resolve(import.meta.dirname, "../..");
const direct = process.env.DATABASE_URL!;

let bouncer: PgBouncer;
let lb: Haproxy;
let browser: Browser;
const apps: AppServer[] = [];
const runtimes: RuntimeProcess[] = [];
const contexts: BrowserContext[] = [];

/** Distinct free ports (freePort alone could hand the same one to servers started side by side). */
async function ports(n: number) {
  const out = new Set<number>();
  while (out.size < n) out.add(await freePort());
  return [...out];
}

beforeAll(async () => {
  bouncer = await startPgBouncer({ databaseUrl: direct });
  const env = {
    BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET!,
    DATABASE_POOLER: "transaction",
    DIRECT_DATABASE_URL: direct,
    TRUSTED_PROXY_HOPS: "1",
    SWEEP_INTERVAL_MS: "2000",
    // A claim whose answer died with its instance comes back to the queue in seconds, not a minute.
    JOB_LEASE_SECONDS: "10",
  };
  const [p1, p2, p3] = await ports(3);
  apps.push(
    ...(await Promise.all([p1, p2, p3].map((port) => startAppServer({ databaseUrl: bouncer.url, port, env })))),
  );
  lb = await startHaproxy({ servers: apps.map((a) => `127.0.0.1:${a.port}`) });
  step("three instances, PgBouncer and HAProxy up");
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
});
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
  await lb?.stop();
  await Promise.all(apps.map((a) => a.stop()));
  await bouncer?.stop();
});

const ready = (app: AppServer) =>
  fetch(`${app.url}/api/health/ready`).then(async (r) => ({ status: r.status, body: await r.json() }));

/** A learner's page through HAProxy (closed after the test with its context). */
async function learnerPage(learner: Learner) {
  const page = await openLearnerPage(browser, lb.url, learner, "topology-pw-123");
  contexts.push(page.context());
  return page;
}

async function inFlight(ids: string[]) {
  return getDb().aiRuntimeJob.findMany({
    where: { id: { in: ids }, status: { in: ["locked", "running"] } },
    select: { id: true },
  });
}

describe("[SYSTEM] HAProxy, three instances, PgBouncer in transaction mode", () => {
  it("loses no job and doubles none through an instance's SIGKILL and a PgBouncer restart; pages and Runtimes carry on", async () => {
    const learners = [await createLearner(), await createLearner()];
    const pages = await Promise.all(learners.map(learnerPage));
    const key = await runtimeKey();
    // Each job takes a second or two, so a job in flight is seen in flight.
    runtimes.push(...spawnRuntimes(8, { apiUrl: lb.url, apiKey: key, delayMs: 1000, concurrency: 3 }));
    // The Runtimes stopped (SIGSTOP) while a wave of jobs is made: every job of it is waiting when they go on.
    const pause = () => runtimes.forEach((r) => void r.kill("SIGSTOP"));
    const resume = () => runtimes.forEach((r) => void r.kill("SIGCONT"));

    step("pages live, Runtimes started");
    pause();
    const ids = await createJobs(learners, 24);
    resume();
    await eventually("jobs in flight", async () => (await inFlight(ids)).length > 0 || null);

    step("jobs in flight");
    // One instance dies mid-flight: HAProxy sends its traffic to the other two.
    await apps[0]!.stop("SIGKILL");

    // PgBouncer goes away with a new wave waiting: the instances that cannot reach the database say
    // so, and no job can finish (a completion goes through the pooler), so the whole wave stays
    // unfinished until it is back, whatever the Runtimes do meanwhile.
    pause();
    const wave = await createJobs(learners, 16);
    ids.push(...wave);
    await bouncer.stop();
    resume();
    for (const app of apps.slice(1)) {
      const r = await ready(app);
      expect([r.status, r.body.database]).toEqual([503, "down"]);
    }
    const unfinished = await getDb().aiRuntimeJob.count({
      where: { id: { in: wave }, status: { notIn: [...TERMINAL_STATUSES] } },
    });
    expect(unfinished).toBe(wave.length);
    step(`PgBouncer down: readiness red, ${(await inFlight(ids)).length} jobs in flight`);
    await bouncer.start();
    for (const app of apps.slice(1))
      await eventually("readiness green again", async () => (await ready(app)).status === 200 || null, 60_000);

    step("PgBouncer back: readiness green");
    // The killed instance comes back and takes traffic again.
    await apps[0]!.start();
    await eventually("the restarted instance ready", async () => (await ready(apps[0]!)).status === 200 || null);
    step("the killed instance is back");
    ids.push(...(await createJobs(learners, 12)));

    await eventually(
      "every job finished",
      async () =>
        (await getDb().aiRuntimeJob.count({
          where: { id: { in: ids }, status: { notIn: [...TERMINAL_STATUSES] } },
        })) === 0 || null,
      150_000,
    );
    step("every job finished");
    expect(await outcomeViolations(direct, ids)).toEqual([]);
    expect((await expectSucceededOnce(ids)).problems).toEqual([]);

    // Every Runtime is still up and the successes they logged add up to the jobs.
    expect(runtimes.filter((r) => !r.alive())).toEqual([]);
    const successes = () =>
      runtimes.flatMap((r) => r.events.filter((e) => e.event === "job.succeeded" && ids.includes(e.jobId!)));
    await eventually("every success logged", async () => successes().length >= ids.length || null, 30_000);
    expect(successes().length).toBe(ids.length);

    step("verified: none lost, none doubled");
    // Each page converges, with its live updates back: a job made now reaches it by push.
    for (const [i, page] of pages.entries()) {
      const probe = await createTestJob(learners[i]!);
      await eventually(
        `learner ${i + 1}'s page hears the new job's success by push`,
        async () => (await pushes(page)).some((p) => p.id === probe.id && p.status === "succeeded") || null,
        60_000,
      );
      await page.getByTestId("live-indicator").getByText("Live updates on").waitFor();
      await page
        .locator(`[data-testid=job-row][data-job-id="${probe.id}"][data-status="succeeded"]`)
        .waitFor({ timeout: 60_000 });
      await eventually(`learner ${i + 1}'s rows all succeeded`, async () => {
        const statuses = await page
          .getByTestId("job-row")
          .evaluateAll((rs) => rs.map((r) => r.getAttribute("data-status")));
        return (statuses.length > 0 && statuses.every((s) => s === "succeeded")) || null;
      });
    }
  });

  it("refuses to start with LISTEN through the pooler, by name", async () => {
    const run = async (env: Record<string, string>) => {
      const child = spawn(
        process.execPath,
        ["server/production-server.mjs", "-p", String(await freePort()), "-H", "127.0.0.1"],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            NODE_ENV: "production",
            ALLOW_GENERATED_SECRETS: "1",
            NEXT_TELEMETRY_DISABLED: "1",
            ...env,
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let out = "";
      child.stdout.on("data", (b) => (out += b));
      child.stderr.on("data", (b) => (out += b));
      const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
      return { code, out };
    };
    // Declared a transaction pooler, with no direct session for LISTEN.
    const declared = await run({ DATABASE_URL: bouncer.url, DATABASE_POOLER: "transaction", DIRECT_DATABASE_URL: "" });
    expect(declared.code).toBe(78);
    expect(declared.out).toMatch(/DIRECT_DATABASE_URL: required with DATABASE_POOLER=transaction/);
    // Not declared: the start finds the pooler behind DATABASE_URL.
    const found = await run({ DATABASE_URL: bouncer.url, DATABASE_POOLER: "none", DIRECT_DATABASE_URL: "" });
    expect(found.code).toBe(78);
    expect(found.out).toMatch(/DATABASE_URL: reaches a connection pooler/);
  });
});
