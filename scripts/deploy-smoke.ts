import { spawn } from "node:child_process";
import path from "node:path";

/**
 * The deploy smoke (`.ci/run` calls it after `npm start`): only the app's real HTTP surface, as an
 * operator would check a fresh deployment.
 *   1. readiness is green;
 *   2. the admin made by `npm run admin:create` signs in with the one-time password, is refused
 *      everything but the password change, and changes it;
 *   3. the admin creates a Runtime key; 50 jobs are created; a reference Runtime started with the
 *      key drains them all;
 *   4. /api/metrics refuses a missing token and answers with it.
 * Settings: APP_URL, ADMIN_EMAIL, ADMIN_PASSWORD (the one-time password), METRICS_TOKEN; SMOKE_JOBS (50).
 */
const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};
const APP = env("APP_URL").replace(/\/$/, "");
const JOBS = Number(process.env.SMOKE_JOBS ?? 50);
const ROOT = path.resolve(import.meta.dirname, "..");
const log = (m: string) => console.log(`[smoke] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(500);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (${(last as Error).message})` : ""}`);
}

let cookie = "";
async function trpc(type: "query" | "mutation", procedure: string, input?: unknown) {
  const url = new URL(`${APP}/api/trpc/${procedure}`);
  if (type === "query" && input !== undefined) url.searchParams.set("input", JSON.stringify(input));
  const res = await fetch(url, {
    method: type === "query" ? "GET" : "POST",
    headers: { cookie, origin: APP, ...(type === "mutation" ? { "content-type": "application/json" } : {}) },
    body: type === "mutation" && input !== undefined ? JSON.stringify(input) : undefined,
  });
  const body = (await res.json()) as {
    result?: { data: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    error?: { message: string; data?: { appCode?: string } };
  };
  return { status: res.status, data: body.result?.data, error: body.error };
}
function expect(ok: unknown, what: string): asserts ok {
  if (!ok) throw new Error(`smoke failed: ${what}`);
}

const started = Date.now();
// 1. Readiness.
const ready = await eventually(
  "readiness green",
  async () => {
    const r = await fetch(`${APP}/api/health/ready`);
    return r.status === 200 && ((await r.json()) as { ok: boolean });
  },
  120_000,
);
log(`readiness green: ${JSON.stringify(ready)}`);
expect((await fetch(`${APP}/api/health/live`)).status === 200, "liveness 200");

// 2. The admin's first sign-in and forced password change.
const signIn = await fetch(`${APP}/api/auth/sign-in/email`, {
  method: "POST",
  headers: { "content-type": "application/json", origin: APP },
  body: JSON.stringify({ email: env("ADMIN_EMAIL"), password: env("ADMIN_PASSWORD") }),
});
expect(signIn.status === 200, `admin sign-in answered ${signIn.status}`);
cookie = signIn.headers
  .getSetCookie()
  .map((c) => c.split(";")[0]!)
  .find((c) => c.includes("session_token="))!;
expect(cookie, "a session cookie");
const refused = await trpc("query", "admin.runtimeKeys.list");
expect(
  refused.status === 403 && refused.error?.data?.appCode === "PASSWORD_CHANGE_REQUIRED",
  `before the change: ${refused.status} ${refused.error?.data?.appCode}`,
);
const newPassword = `smoke-${crypto.randomUUID()}`;
const changed = await trpc("mutation", "account.changePassword", {
  currentPassword: env("ADMIN_PASSWORD"),
  newPassword,
});
expect(changed.status === 200, `password change answered ${changed.status} ${changed.error?.message}`);
log("admin signed in with the one-time password and changed it");

// 3. A Runtime key, 50 jobs, a reference Runtime drains them.
const created = await trpc("mutation", "admin.runtimeKeys.create", { name: "deploy smoke" });
expect(
  created.status === 200 && typeof created.data?.key === "string",
  `runtime key: ${created.status} ${created.error?.message}`,
);
const me = (await trpc("query", "me.get")).data.user as { id: string };
expect((await trpc("mutation", "consent.set", { granted: true })).status === 200, "consent on");
// 50 jobs in a minute are over the default hourly quota (30): the admin raises its own limit, as an
// operator would for a load test (audited), rather than the smoke running with other settings.
const raised = await trpc("mutation", "admin.quotas.setLimit", {
  userId: me.id,
  metric: "jobs",
  period: "hour",
  allowed: JOBS * 2,
});
expect(raised.status === 200, `raising the hourly quota answered ${raised.status} ${raised.error?.message}`);
const types = ["learning_state_analysis", "weak_point_analysis", "next_action_planning"];
const ids: string[] = [];
for (let i = 0; i < JOBS; i++) {
  const r = await trpc("mutation", "jobs.create", {
    jobType: types[i % types.length],
    target: { type: "user", id: me.id },
    idempotencyKey: `smoke-${started}-${i}`,
  });
  expect(r.status === 200, `jobs.create answered ${r.status} ${r.error?.message}`);
  ids.push(r.data.job.id);
}
log(`created ${ids.length} jobs`);
const runtime = spawn(process.execPath, ["--import", "tsx", "runtime/main.ts"], {
  cwd: ROOT,
  stdio: ["ignore", "ignore", "inherit"],
  env: {
    PATH: process.env.PATH,
    RUNTIME_API_URL: APP,
    RUNTIME_API_KEY: created.data.key,
    RUNTIME_INSTANCE_ID: "deploy-smoke",
    RUNTIME_PROVIDER: "local",
    RUNTIME_CONCURRENCY: "8",
  } as unknown as NodeJS.ProcessEnv,
});
try {
  const drainStarted = Date.now();
  const statuses = await eventually(
    `${JOBS} jobs succeeded`,
    async () => {
      const list = await trpc("query", "jobs.list", { pageSize: 100 });
      const mine = (list.data.items as { id: string; status: string }[]).filter((j) => ids.includes(j.id));
      const failed = mine.filter((j) => j.status === "failed" || j.status === "cancelled");
      if (failed.length) throw new Error(`jobs ended ${failed.map((j) => j.status).join(",")}`);
      return mine.length === JOBS && mine.every((j) => j.status === "succeeded") && mine;
    },
    300_000,
  );
  log(`the reference Runtime drained ${statuses.length} jobs in ${Date.now() - drainStarted} ms`);
} finally {
  runtime.kill("SIGTERM");
}

// 4. Metrics behind the token.
expect((await fetch(`${APP}/api/metrics`)).status === 401, "metrics without the token are refused");
const metrics = await fetch(`${APP}/api/metrics`, { headers: { authorization: `Bearer ${env("METRICS_TOKEN")}` } });
const text = await metrics.text();
expect(metrics.status === 200 && text.includes("# TYPE"), `metrics with the token answered ${metrics.status}`);
log(`metrics answered with the token (${text.split("\n").length} lines)`);
log(`deploy smoke passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
