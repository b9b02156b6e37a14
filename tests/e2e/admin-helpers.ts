import { JOB_TYPES } from "@/server/job-types/catalogue";
import { expectAccessible } from "./a11y";
import { expect, request as pwRequest, test, type APIRequestContext, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";

/** Demo accounts from prisma/seed-data.ts. */
export const ADMIN = { email: "admin@example.com", password: "admin-demo-password" };
export const ADA = { email: "ada@example.com", password: "learner-demo-password" };

const baseURL = () => test.info().project.use.baseURL!;
const origin = () => new URL(baseURL()).origin;

/** Signs in through better-auth's endpoint with the given request context (a page's shares its cookies). */
export async function signIn(req: APIRequestContext, who: { email: string; password: string }) {
  const res = await req.post("/api/auth/sign-in/email", { data: who, headers: { origin: origin() } });
  expect(res.status(), await res.text()).toBe(200);
}

export async function signedInRequest(who: { email: string; password: string }) {
  const req = await pwRequest.newContext({ baseURL: baseURL() });
  await signIn(req, who);
  return req;
}

/** A tRPC call over HTTP (no transformer): queries are GET ?input=, mutations POST the input. */
export async function trpc<T = unknown>(
  req: APIRequestContext,
  path: string,
  input: unknown,
  kind: "query" | "mutation",
) {
  const res =
    kind === "query"
      ? await req.get(
          `/api/trpc/${path}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`,
          { headers: { origin: origin() } },
        )
      : await req.post(`/api/trpc/${path}`, { data: input ?? {}, headers: { origin: origin() } });
  const body = await res.json().catch(() => null);
  return { status: res.status(), data: body?.result?.data as T, error: body?.error };
}

/** A Runtime speaking the HTTP protocol with its own key and instance id. */
export function runtimeClient(req: APIRequestContext, key: string, id = `e2e-admin-${randomUUID().slice(0, 8)}`) {
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await req.post(`/internal/runtime/jobs/${path}`, {
      data: { runtimeInstanceId: id, ...body },
      headers: { authorization: `Bearer ${key}` },
    });
    return { status: res.status(), body: await res.json().catch(() => null) };
  };
  return {
    id,
    poll: () => post("poll", { capabilities: ["quiz_generation"], limit: 1 }),
    lock: (jobId: string) => post(`${jobId}/lock`, {}),
    heartbeat: (jobId: string, attemptNo: number, at = { stage: "model_inference", progress: 40 }) =>
      post(`${jobId}/heartbeat`, { attemptNo, ...at }),
    fail: (
      jobId: string,
      attemptNo: number,
      errorCode: string,
      errorMessage: string,
      extra: Record<string, unknown> = {},
    ) => post(`${jobId}/fail`, { attemptNo, errorCode, errorMessage, ...extra }),
    result: (jobId: string, attemptNo: number, output: unknown) => post(`${jobId}/result`, { attemptNo, output }),
  };
}

type Job = { id: string; status: string };

/**
 * Creates a job as Ada and takes its lease. Callers hold the e2e server's reference Runtime off
 * the job's type (whileHeld), so the lease is this test Runtime's, never a race.
 */
async function lockNew(
  learner: APIRequestContext,
  rt: ReturnType<typeof runtimeClient>,
  jobType: string,
  params: Record<string, unknown>,
  key: string,
) {
  const me = await trpc<{ user: { id: string } }>(learner, "me.get", undefined, "query");
  const created = await trpc<{ job: Job }>(
    learner,
    "jobs.create",
    { jobType, target: { type: "user", id: me.data.user.id }, params, idempotencyKey: key },
    "mutation",
  );
  expect(created.status, JSON.stringify(created.error)).toBe(200);
  const lock = await rt.lock(created.data.job.id);
  expect(lock.status, JSON.stringify(lock.body)).toBe(200);
  return created.data.job.id;
}

/** Locks a job again once its retry backoff has passed (it answers JOB_NOT_LOCKABLE until then). */
async function relockAfterBackoff(rt: ReturnType<typeof runtimeClient>, jobId: string) {
  await expect
    .poll(async () => (await rt.lock(jobId)).status, { timeout: 60_000, intervals: [50, 100, 200] })
    .toBe(200);
}

/**
 * A job of Ada's that failed through the Runtime protocol: with `retryFirst`, attempt 1 fails
 * with a retryable MODEL_TIMEOUT and attempt 2 with INVALID_SCHEMA; else one INVALID_SCHEMA.
 * With `rejection`, the last fail reports the output the Runtime's quality loop last rejected.
 */
export async function failedJob(
  learner: APIRequestContext,
  key: string,
  opts: {
    jobType?: string;
    retryFirst?: boolean;
    tag: string;
    rejection?: { rejectedOutput: unknown; violations: { path: string; rule: string; message: string }[] };
  },
) {
  const jobType = opts.jobType ?? "quiz_generation";
  const params = jobType === "quiz_generation" || jobType === "flashcard_generation" ? { count: 2 } : {};
  return whileHeld(jobType, async () => {
    const rt = runtimeClient(learner, key);
    const jobId = await lockNew(learner, rt, jobType, params, opts.tag);
    let attempt = 1;
    if (opts.retryFirst) {
      const first = await rt.fail(jobId, 1, "MODEL_TIMEOUT", "model took longer than 60 s");
      expect(first.body.status).toBe("pending");
      await relockAfterBackoff(rt, jobId);
      attempt = 2;
    }
    const last = await rt.fail(
      jobId,
      attempt,
      "INVALID_SCHEMA",
      `output failed the v1 schema on attempt ${attempt}`,
      opts.rejection,
    );
    expect(last.body.status).toBe("failed");
    return jobId;
  });
}

/**
 * A quiz of Ada's whose output the API refused: the Runtime submits `output` for attempt 1 and
 * gets 422 INVALID_SCHEMA with the violations, which are returned with the job id.
 */
export async function rejectedJob(learner: APIRequestContext, key: string, output: unknown, tag: string) {
  return whileHeld("quiz_generation", async () => {
    const rt = runtimeClient(learner, key);
    const jobId = await lockNew(learner, rt, "quiz_generation", { count: 2 }, tag);
    const res = await rt.result(jobId, 1, output);
    expect(res.status).toBe(422);
    return { jobId, violations: res.body.error.details as { path: string; rule: string; message: string }[] };
  });
}

/** A job of Ada's held by a test Runtime, moved to running by a heartbeat. */
export async function runningJob(learner: APIRequestContext, key: string, tag: string) {
  return whileHeld("learning_state_analysis", async () => {
    const rt = runtimeClient(learner, key);
    const jobId = await lockNew(learner, rt, "learning_state_analysis", {}, tag);
    const lease = keepLease(rt, jobId);
    expect((await lease.heartbeat()).status).toBe(200);
    return { jobId, rt, lease };
  });
}

/**
 * The test's Runtime holds its lease as a real Runtime does: leases are 10 s in the e2e server, so
 * it heartbeats every 2 s, repeating the last stage it reported, until stop(); without this a
 * page that took 10 s to load under load found the job's lease passed and the job ended by the
 * sweep (seen once: "cancel a running job"). Heartbeats go out one after another, never crossing.
 */
export function keepLease(rt: ReturnType<typeof runtimeClient>, jobId: string, attemptNo = 1) {
  let at = { stage: "model_inference", progress: 40 };
  let chain: Promise<unknown> = Promise.resolve();
  const send = (next: typeof at) => {
    const sent = chain.then(() => rt.heartbeat(jobId, attemptNo, next));
    chain = sent.catch(() => {});
    return sent;
  };
  const timer = setInterval(() => void send(at), 2_000);
  return {
    /** A heartbeat now, in order after any in flight; `next` becomes the stage the keep-alive repeats. */
    heartbeat: (next = at) => {
      at = next;
      return send(next);
    },
    stop: async () => {
      clearInterval(timer);
      await chain;
    },
  };
}

/** A screenshot of the state, and axe over it (every state worth a screenshot is checked for accessibility). */
export async function shot(page: Page, name: string) {
  await page.screenshot({ path: `test-results/screenshots/admin-${name}.png`, fullPage: true });
  await expectAccessible(page, `admin ${name}`);
}

/** Every job type, as the catalogue lists them (a key with none listed may run all). */
const ALL_JOB_TYPES: readonly string[] = JOB_TYPES;

/**
 * Holds the e2e server's reference Runtime off `jobTypes` with the admin's own control: its key's
 * scope (admin.runtimeKeys.setScope) leaves those types out, so jobs of them stay pending until
 * the returned release gives the key every type again. The scope change reaches the key's very
 * next request (the app drops its cached key before answering), so jobs created after this
 * returns are never claimed by it.
 */
export async function holdReferenceRuntime(adminApi: APIRequestContext, jobTypes: string[]) {
  const keys = await trpc<{ items: { id: string; name: string; revokedAt: string | null; jobTypes: string[] }[] }>(
    adminApi,
    "admin.runtimeKeys.list",
    undefined,
    "query",
  );
  const ref = keys.data.items.find((k) => k.name === "e2e reference runtime" && !k.revokedAt);
  expect(ref, "the e2e server's reference Runtime key").toBeDefined();
  const set = async (types: string[]) => {
    const res = await trpc(adminApi, "admin.runtimeKeys.setScope", { id: ref!.id, jobTypes: types }, "mutation");
    expect(res.status, JSON.stringify(res.error)).toBe(200);
  };
  // Holds nest: each takes its types out of what the key may run now, and gives back exactly that.
  const before = ref!.jobTypes;
  const allowed = (before.length ? before : ALL_JOB_TYPES).filter((t) => !jobTypes.includes(t));
  expect(allowed.length, "a key needs at least one job type (none listed means all)").toBeGreaterThan(0);
  await set(allowed);
  return () => set(before);
}

/** Runs `fn` while the reference Runtime is held off `jobType` (an admin session of its own does the holding). */
async function whileHeld<T>(jobType: string, fn: () => Promise<T>): Promise<T> {
  const admin = await signedInRequest(ADMIN);
  const release = await holdReferenceRuntime(admin, [jobType]);
  try {
    return await fn();
  } finally {
    await release();
    await admin.dispose();
  }
}
