import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { createRuntimeKey, revokeRuntimeKey } from "@/server/runtime-keys";
import { callerAs, setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { releaseJobsOf } from "../helpers/release-jobs";
import { ALL_TYPES, call, runtime } from "../helpers/runtime-api";
import { ENDPOINTS, type EndpointName } from "@/server/runtime-api/dispatch";

/**
 * Every Runtime endpoint (from the dispatcher's table, which the HTTP route serves) × anonymous,
 * learner A, learner B, admin (each with a real session cookie), a learner's session token sent as
 * a bearer, a revoked Runtime key and a valid one. Only the valid key gets in; every refusal is a
 * 401 that leaves the job as it was.
 */
const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];

/** jobId: the job in the path (null for /poll and /results); watch: the job whose state a refusal must leave alone. */
type Prepared = { jobId: string | null; body: Record<string, unknown>; watch?: string };
const INSTANCE = uid("holder");

/** Per route: a job in the state the route needs, and a body that a valid key gets a 200 for. */
const ROUTES: Record<EndpointName, (a: Learner, key: string) => Promise<Prepared>> = {
  poll: async () => ({ jobId: null, body: { runtimeInstanceId: INSTANCE, capabilities: ALL_TYPES, limit: 5 } }),
  lock: async (a) => ({ jobId: (await createTestJob(a)).id, body: { runtimeInstanceId: INSTANCE } }),
  heartbeat: async (a, key) => {
    const { jobId, attemptNo } = await locked(a, key);
    return { jobId, body: { runtimeInstanceId: INSTANCE, attemptNo, stage: "prompt_builder", progress: 10 } };
  },
  result: async (a, key) => {
    const { jobId, attemptNo } = await locked(a, key);
    const output = validOutput(
      "learning_state_analysis",
      a.knowledgePoints.map((k) => k.id),
    );
    return { jobId, body: { runtimeInstanceId: INSTANCE, attemptNo, output } };
  },
  results: async (a, key) => {
    const { jobId, attemptNo } = await locked(a, key);
    const output = validOutput(
      "learning_state_analysis",
      a.knowledgePoints.map((k) => k.id),
    );
    return {
      jobId: null,
      watch: jobId,
      body: {
        runtimeInstanceId: INSTANCE,
        results: [{ jobId, jobType: "learning_state_analysis", attemptNo, output }],
      },
    };
  },
  fail: async (a, key) => {
    const { jobId, attemptNo } = await locked(a, key);
    return {
      jobId,
      body: { runtimeInstanceId: INSTANCE, attemptNo, errorCode: "NETWORK_ERROR", errorMessage: "test" },
    };
  },
};

async function locked(a: Learner, key: string) {
  const job = await createTestJob(a);
  const res = await runtime(key, INSTANCE).lock(job.id);
  expect(res.status).toBe(200);
  return { jobId: job.id, attemptNo: res.body.job.attemptNo as number };
}

const CALLERS = [
  "anonymous",
  "learnerA",
  "learnerB",
  "admin",
  "sessionTokenAsBearer",
  "revokedKey",
  "runtimeKey",
] as const;
type Who = (typeof CALLERS)[number];

let a: Learner;
let headersOf: Record<Who, Record<string, string>>;
let key: string;

afterAll(() => releaseJobsOf([a]));

beforeAll(async () => {
  const [la, lb, admin] = await Promise.all([createLearner(), createLearner(), createLearner({ role: "admin" })]);
  a = la;
  const password = `pw-${uid()}`;
  await Promise.all([la, lb, admin].map((l) => setPassword(l.user.id, password)));
  const [cookieA, cookieB, cookieAdmin] = await Promise.all(
    [la, lb, admin].map((l) => signedInCookie(l.user.email, password)),
  );
  const token = (await getDb().session.findFirstOrThrow({ where: { userId: la.user.id } })).token;
  key = await runtimeKey();
  const revoked = await createRuntimeKey(uid("revoked"));
  await revokeRuntimeKey(revoked.id);
  headersOf = {
    anonymous: {},
    learnerA: { cookie: cookieA! },
    learnerB: { cookie: cookieB! },
    admin: { cookie: cookieAdmin! },
    sessionTokenAsBearer: { authorization: `Bearer ${token}` },
    revokedKey: { authorization: `Bearer ${revoked.key}` },
    runtimeKey: { authorization: `Bearer ${key}` },
  };
});

async function callRoute(endpoint: EndpointName, prepared: Prepared, headers: Record<string, string>) {
  return call(endpoint, prepared.jobId, prepared.body, { headers });
}

async function state(jobId: string | null) {
  if (!jobId) return null;
  const j = await jobRow(jobId);
  return JSON.stringify({
    status: j.status,
    attemptNo: j.attemptNo,
    lockedBy: j.lockedBy,
    lockUntil: j.lockUntil,
    progress: j.progress,
    events: j.events.length,
    result: j.result?.id ?? null,
  });
}

describe("every Runtime endpoint has a matrix entry", () => {
  it("endpoints were found", () => expect(ENDPOINT_NAMES.length).toBeGreaterThanOrEqual(5));
  it.each(ENDPOINT_NAMES)("%s", (name) => expect(ROUTES[name], `add ${name} to ROUTES`).toBeDefined());
});

describe.each(ENDPOINT_NAMES)("%s", (endpoint) => {
  it.each(CALLERS)("as %s", async (who) => {
    const prepared = await ROUTES[endpoint]!(a, key);
    const watched = prepared.watch ?? prepared.jobId;
    const before = await state(watched);
    const res = await callRoute(endpoint, prepared, headersOf[who]);
    if (who === "runtimeKey") {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      if (endpoint === "results") expect(res.body.results[0].httpStatus, JSON.stringify(res.body)).toBe(200);
    } else {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("UNAUTHORIZED");
      expect(await state(watched)).toBe(before);
    }
  });
});

describe("Runtime keys managed through tRPC", () => {
  it("a key works until an admin revokes it, and fails on the very next request", async () => {
    const admin = await createLearner({ role: "admin" });
    const created = await callerAs(admin.user).admin.runtimeKeys.create({ name: uid("rt") });
    expect(created.key.startsWith(created.prefix)).toBe(true);
    const rt = runtime(created.key, uid("inst"));
    expect((await rt.poll()).status).toBe(200);

    const listed = (await callerAs(admin.user).admin.runtimeKeys.list()).items.find((k) => k.id === created.id);
    expect(listed).toMatchObject({ name: created.name, prefix: created.prefix, revokedAt: null });
    expect(listed?.lastUsedAt).not.toBeNull();
    expect(listed).not.toHaveProperty("key");
    expect(listed).not.toHaveProperty("hash");

    await callerAs(admin.user).admin.runtimeKeys.revoke({ id: created.id });
    const after = await rt.poll();
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("UNAUTHORIZED");
    const revoked = (await callerAs(admin.user).admin.runtimeKeys.list()).items.find((k) => k.id === created.id);
    expect(revoked?.revokedAt).toEqual(expect.any(String));
  });

  it("revoking an unknown key is NOT_FOUND; revoking twice is harmless", async () => {
    const admin = await createLearner({ role: "admin" });
    const err = await callerAs(admin.user)
      .admin.runtimeKeys.revoke({ id: "no_such_key" })
      .catch((e) => e);
    expect(err.code).toBe("NOT_FOUND");
    const created = await callerAs(admin.user).admin.runtimeKeys.create({ name: uid("rt") });
    await callerAs(admin.user).admin.runtimeKeys.revoke({ id: created.id });
    await expect(callerAs(admin.user).admin.runtimeKeys.revoke({ id: created.id })).resolves.toEqual({
      id: created.id,
      revoked: true,
    });
  });
});
