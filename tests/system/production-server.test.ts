import { PROTOCOL_HEADER, RUNTIME_PROTOCOL_VERSION } from "@/server/runtime-api/protocol";
import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { stopGroup, waitForHttp } from "../../scripts/lib/processes";
import { createLearner, createTestJob, runtimeKey, type Learner } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { expectSucceededOnce, TYPES } from "./jobs";
import { validOutput } from "../helpers/outputs";

/**
 * `npm start` (server/production-server.mjs) as an operator runs it: refuses a bad configuration
 * before opening a port, serves probes, the Runtime protocol (through its short door,
 * server/runtime-api/door.ts) and the metrics, drains on SIGTERM; and plain `next start` serves the
 * protocol through the App Router route handler.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const BUILD_LOCK = path.join(ROOT, ".data", "next-build.lock");
const PRODUCTION = {
  NODE_ENV: "production",
  ALLOW_GENERATED_SECRETS: "0",
  BETTER_AUTH_SECRET: "system-test-auth-secret-0123456789abcdef",
  APP_ENCRYPTION_KEY: "cd".repeat(32),
  METRICS_TOKEN: "system-test-metrics-token",
};
/** The production settings, with the public origin of the port the instance will listen on. */
async function productionApp(env: Record<string, string> = {}, databaseUrl = process.env.DATABASE_URL!) {
  const port = await freePort();
  const app = await startAppServer({
    databaseUrl,
    port,
    env: { ...PRODUCTION, BETTER_AUTH_URL: `http://127.0.0.1:${port}`, ...env },
  });
  apps.push(app);
  return app;
}
/** Jobs whose valid output needs no params (the test plays the Runtime itself). */
async function plainJobs(learners: Learner[], n: number) {
  const types = ["learning_state_analysis", "weak_point_analysis"] as const;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await createTestJob(learners[i % learners.length]!, types[i % 2])).id);
  return ids;
}
const apps: AppServer[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop("SIGKILL")));
});

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });

/** One request on its own connection: a response, or the socket error (ECONNREFUSED: listener closed; ECONNRESET: reset — by the kernel for a connection the app never accepted, or a cut). */
function post(url: string, key: string, body: unknown) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return new Promise<{ status: number; json: any } | { error: string }>((resolve) => {
    const text = JSON.stringify(body);
    const req = http.request(url, {
      method: "POST",
      agent: false,
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${key}`,
        // The current protocol: its leases and results are v2 (docs/contract.md#versions-and-the-compatibility-promise).
        [PROTOCOL_HEADER]: RUNTIME_PROTOCOL_VERSION,
        "content-length": Buffer.byteLength(text),
      },
    });
    req.on("response", (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode!, json: JSON.parse(data) }));
      res.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(text);
  });
}

describe("[SYSTEM] production start", () => {
  it("refuses to start with missing or invalid settings, naming each, before any port is opened", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ["server/production-server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NEXT_TELEMETRY_DISABLED: "1",
        DB_POOL_MAX: "many",
        APP_ENCRYPTION_KEY: "not-32-bytes",
        OIDC_ISSUER: "http://idp.example.com",
        OIDC_CLIENT_ID: "runtime",
        OIDC_CLIENT_SECRET: "idp-secret-value",
      } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (b) => (out += b));
    child.stderr.on("data", (b) => (out += b));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    let opened = false;
    const watcher = (async () => {
      while (child.exitCode === null) {
        opened ||= await listening(port);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    expect(await exited).toBe(78);
    await watcher;
    expect(opened).toBe(false);
    for (const name of ["DATABASE_URL", "BETTER_AUTH_SECRET", "BETTER_AUTH_URL", "METRICS_TOKEN"])
      expect(out).toContain(`${name}: required in production`);
    expect(out).toMatch(/DB_POOL_MAX: a number, got "many"/);
    expect(out).toMatch(/APP_ENCRYPTION_KEY: 32 bytes.*value hidden/);
    expect(out).toMatch(/OIDC_ISSUER: must be https:\/\/ in production/);
    expect(out).not.toContain("not-32-bytes");
  });

  it("serves probes, the Runtime protocol and token-guarded metrics, and no demo account", async () => {
    const app = await productionApp();
    expect((await fetch(`${app.url}/api/health/live`)).status).toBe(200);
    const ready = await fetch(`${app.url}/api/health/ready`);
    expect([ready.status, (await ready.json()).draining]).toEqual([200, false]);
    expect((await fetch(`${app.url}/api/metrics`)).status).toBe(401);
    const metrics = await fetch(`${app.url}/api/metrics`, {
      headers: { authorization: `Bearer ${PRODUCTION.METRICS_TOKEN}` },
    });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("# TYPE");
    const demo = await fetch(`${app.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.url },
      body: JSON.stringify({ email: "admin@example.com", password: "admin-demo-password" }),
    });
    expect(demo.status).toBe(401);

    const key = await runtimeKey();
    const learner = await createLearner();
    const [jobId] = await plainJobs([learner], 1);
    const claimed = await post(`${app.url}/internal/runtime/jobs/poll`, key, {
      runtimeInstanceId: "prod-rt",
      capabilities: TYPES,
      claim: true,
      limit: 50,
    });
    expect("status" in claimed && claimed.status).toBe(200);
    const lease = (
      claimed as {
        json: { jobs: { job: { id: string; jobType: string; attemptNo: number; params: Record<string, unknown> } }[] };
      }
    ).json.jobs.find((l) => l.job.id === jobId)!.job;
    const output = validOutput(
      lease.jobType as (typeof TYPES)[number],
      learner.knowledgePoints.map((k) => k.id),
      lease.params,
    );
    const done = await post(`${app.url}/internal/runtime/jobs/${jobId}/result`, key, {
      runtimeInstanceId: "prod-rt",
      attemptNo: lease.attemptNo,
      output,
    });
    expect(done).toMatchObject({ status: 200, json: { status: "succeeded" } });
    expect(await post(`${app.url}/internal/runtime/jobs/${jobId}/explode`, key, {})).toMatchObject({
      status: 404,
      json: { error: { code: "NOT_FOUND" } },
    });
  });

  it("readiness fails while the database is unreachable; liveness does not", async () => {
    const dead = `postgresql://nobody:pw@127.0.0.1:${await freePort(3300, 3399)}/none`;
    const app = await productionApp({ DB_CONNECT_TIMEOUT_MS: "500" }, dead);
    expect((await fetch(`${app.url}/api/health/live`)).status).toBe(200);
    const ready = await fetch(`${app.url}/api/health/ready`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).database).toBe("down");
    await app.stop();
  });

  it("SIGTERM under Runtime load: in-flight requests finish, none is cut, no job is lost or doubled", async () => {
    const app = await productionApp({ SHUTDOWN_GRACE_MS: "10000" });
    const learners = await Promise.all(Array.from({ length: 4 }, () => createLearner()));
    const kpIds = new Map(learners.map((l) => [l.user.id, l.knowledgePoints.map((k) => k.id)]));
    const ids = await plainJobs(learners, 120);
    const idSet = new Set(ids);
    const key = await runtimeKey();
    const outcomes: string[] = [];
    const cut: string[] = [];
    let termAt = 0;
    let finishedAfterTerm = 0;
    const { getDb } = await import("@/server/db");
    const owner = new Map(
      (await getDb().aiRuntimeJob.findMany({ where: { id: { in: ids } }, select: { id: true, userId: true } })).map(
        (j) => [j.id, j.userId],
      ),
    );

    /** Sends until answered; a refused connection (instance down or restarting) is retried. */
    async function until(urlPath: string, body: unknown) {
      for (;;) {
        const started = Date.now();
        const res = await post(`${app.url}${urlPath}`, key, body);
        if ("error" in res) {
          outcomes.push(res.error);
          // Refused (listener closed) or reset before any answer byte: a connection the kernel had
          // queued but the app never accepted when the listener closed (the server counts every
          // request it did accept, below). Either way the Runtime retries, as the reference one does.
          if (res.error !== "ECONNREFUSED" && res.error !== "ECONNRESET")
            cut.push(`${res.error} on ${urlPath.split("/").pop()} at SIGTERM+${started - termAt} ms`);
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        outcomes.push(String(res.status));
        if (termAt && started < termAt && Date.now() > termAt) finishedAfterTerm++;
        return res;
      }
    }
    async function loop(n: number) {
      const rt = `drain-rt-${n}`;
      for (;;) {
        const polled = await until("/internal/runtime/jobs/poll", {
          runtimeInstanceId: rt,
          capabilities: TYPES,
          claim: true,
          limit: 2,
        });
        const leases = (
          polled.json.jobs as {
            job: { id: string; jobType: string; attemptNo: number; params: Record<string, unknown> };
          }[]
        )
          .map((l) => l.job)
          .filter((j) => idSet.has(j.id));
        if (!leases.length) {
          if (
            polled.json.jobs.length === 0 &&
            (await getDb().aiRuntimeJob.count({ where: { id: { in: ids }, status: { not: "succeeded" } } })) === 0
          )
            return;
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        for (const job of leases) {
          await until(`/internal/runtime/jobs/${job.id}/heartbeat`, {
            runtimeInstanceId: rt,
            attemptNo: job.attemptNo,
            stage: "model_inference",
            progress: 50,
          });
          const output = validOutput(job.jobType as (typeof TYPES)[number], kpIds.get(owner.get(job.id)!)!, job.params);
          const res = await until(`/internal/runtime/jobs/${job.id}/result`, {
            runtimeInstanceId: rt,
            attemptNo: job.attemptNo,
            output,
          });
          expect(res.status, JSON.stringify(res.json)).toBe(200);
        }
      }
    }
    const loops = Promise.all(Array.from({ length: 8 }, (_, i) => loop(i)));
    await eventually(
      "some jobs done before SIGTERM",
      async () => (await getDb().aiRuntimeJob.count({ where: { id: { in: ids }, status: "succeeded" } })) >= 20 || null,
      60_000,
    );
    termAt = Date.now();
    await app.stop("SIGTERM"); // returns once the server has drained and exited (or been killed after 60 s)
    await eventually(
      "the server drained and stopped",
      async () => app.output().includes("[server] stopped") || null,
      30_000,
    );
    const stoppedOutput = app.output();
    expect(stoppedOutput).toMatch(/\[server\] SIGTERM: draining \d+ in-flight request/);
    // Every request the server accepted was answered in full; none was cut by the shutdown.
    expect(stoppedOutput).toMatch(/\[server\] stopped: \d+ request\(s\) answered while draining, 0 cut/);
    // Down until the load has met the stopped instance (a refused connection), then back up.
    await eventually("a request refused while down", async () => outcomes.includes("ECONNREFUSED") || null, 30_000);
    await app.start();
    await loops;

    expect(cut).toEqual([]);
    expect(outcomes.filter((o) => !/^\d+$/.test(o) && o !== "ECONNREFUSED" && o !== "ECONNRESET")).toEqual([]);
    expect(outcomes).toContain("ECONNREFUSED"); // the load really met the stopped instance
    expect(outcomes.filter((o) => /^5\d\d$/.test(o))).toEqual([]);
    console.log(
      `[shutdown] ${outcomes.length} requests, ${outcomes.filter((o) => o === "ECONNREFUSED").length} refused and ${outcomes.filter((o) => o === "ECONNRESET").length} reset before acceptance while down, ${finishedAfterTerm} in flight at SIGTERM finished; ${/stopped: .*/.exec(stoppedOutput)?.[0]}`,
    );
    const { problems } = await expectSucceededOnce(ids);
    expect(problems).toEqual([]);
  });
});

describe("[SYSTEM] plain next start", () => {
  it("serves the Runtime protocol through the App Router route handler", async () => {
    const port = await freePort();
    const child = spawn(
      "flock",
      [
        "-s",
        BUILD_LOCK,
        path.join(ROOT, "node_modules", ".bin", "next"),
        "start",
        "-p",
        String(port),
        "-H",
        "127.0.0.1",
      ],
      {
        cwd: ROOT,
        detached: true,
        stdio: "ignore",
        env: { ...process.env, NODE_ENV: "production", ALLOW_GENERATED_SECRETS: "1", NEXT_TELEMETRY_DISABLED: "1" },
      },
    );
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitForHttp(`${url}/api/health/live`, 240_000);
      const key = await runtimeKey();
      const polled = await post(`${url}/internal/runtime/jobs/poll`, key, {
        runtimeInstanceId: "next-start-rt",
        capabilities: ["quiz_generation"],
      });
      expect(polled).toMatchObject({
        status: 200,
        json: { jobs: expect.any(Array), pollIntervalMs: expect.any(Number) },
      });
      expect(
        await post(`${url}/internal/runtime/jobs/poll`, "wrong-key", {
          runtimeInstanceId: "x",
          capabilities: ["quiz_generation"],
        }),
      ).toMatchObject({ status: 401, json: { error: { code: "UNAUTHORIZED" } } });
    } finally {
      await stopGroup(child);
    }
  });
});
