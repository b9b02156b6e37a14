import { beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually";
import { createLearner, createTestJob, runtimeKey, uid, type Learner } from "../helpers/factories";
import { fingerprint } from "../helpers/states";
import { call, runtime, type Endpoint } from "../helpers/runtime-api";
import { revokeRuntimeKey, createRuntimeKey } from "@/server/runtime-keys";
import { getDb } from "@/server/db";

type Case = {
  name: string;
  key?: "none" | "wrong" | "revoked";
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  jobId?: string;
  status: number;
  code: string;
};

const ENDPOINTS: Endpoint[] = ["poll", "lock", "heartbeat", "result", "results", "fail"];

/** A valid body per endpoint for a locked job, which each case then breaks in one way. */
function validBody(endpoint: Endpoint, rtId: string): Record<string, unknown> {
  switch (endpoint) {
    case "poll":
      return { runtimeInstanceId: rtId, capabilities: ["learning_state_analysis"], limit: 5 };
    case "lock":
      return { runtimeInstanceId: rtId };
    case "heartbeat":
      return { runtimeInstanceId: rtId, attemptNo: 1, progress: 10 };
    case "result":
      return { runtimeInstanceId: rtId, attemptNo: 1, output: { summary: "x" } };
    case "results":
      return {
        runtimeInstanceId: rtId,
        results: [{ jobId: "rt-job", jobType: "learning_state_analysis", attemptNo: 1, output: { summary: "x" } }],
      };
    case "fail":
      return { runtimeInstanceId: rtId, attemptNo: 1, errorCode: "NETWORK_ERROR", errorMessage: "x" };
  }
}

function cases(endpoint: Endpoint, rtId: string): Case[] {
  const body = validBody(endpoint, rtId);
  const list: Case[] = [
    { name: "no key", key: "none", body, status: 401, code: "UNAUTHORIZED" },
    { name: "wrong key", key: "wrong", body, status: 401, code: "UNAUTHORIZED" },
    { name: "revoked key", key: "revoked", body, status: 401, code: "UNAUTHORIZED" },
    { name: "malformed JSON", raw: '{"runtimeInstanceId": "x",', status: 400, code: "MALFORMED_JSON" },
    { name: "empty body", raw: "", status: 400, code: "MALFORMED_JSON" },
    { name: "a JSON array", body: [body], status: 400, code: "INVALID_REQUEST" },
    { name: "a JSON string", body: "hello", status: 400, code: "INVALID_REQUEST" },
    {
      name: "wrong content type",
      raw: JSON.stringify(body),
      headers: { "content-type": "text/plain" },
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
    },
    {
      name: "oversize body",
      body: { ...body, padding: "x".repeat(300 * 1024) },
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
    },
    {
      name: "missing runtimeInstanceId",
      body: { ...body, runtimeInstanceId: undefined },
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "runtimeInstanceId of the wrong type",
      body: { ...body, runtimeInstanceId: 42 },
      status: 400,
      code: "INVALID_REQUEST",
    },
    {
      name: "runtimeInstanceId with odd characters",
      body: { ...body, runtimeInstanceId: "rt'; DROP TABLE x;--" },
      status: 400,
      code: "INVALID_REQUEST",
    },
  ];
  if (endpoint === "poll") {
    list.push(
      {
        name: "unknown job type",
        body: { ...body, capabilities: ["image_generation"] },
        status: 400,
        code: "INVALID_REQUEST",
      },
      { name: "limit 0", body: { ...body, limit: 0 }, status: 400, code: "INVALID_REQUEST" },
      { name: "limit 51", body: { ...body, limit: 51 }, status: 400, code: "INVALID_REQUEST" },
      { name: "limit as a string", body: { ...body, limit: "10" }, status: 400, code: "INVALID_REQUEST" },
      { name: "no capabilities", body: { ...body, capabilities: [] }, status: 400, code: "INVALID_REQUEST" },
    );
  } else if (endpoint === "results") {
    const item = (body.results as Record<string, unknown>[])[0]!;
    const withItem = (changes: Record<string, unknown>) => ({ ...body, results: [{ ...item, ...changes }] });
    list.push(
      { name: "no results", body: { ...body, results: [] }, status: 400, code: "INVALID_REQUEST" },
      {
        name: "51 results",
        body: { ...body, results: Array.from({ length: 51 }, (_, i) => ({ ...item, jobId: `job-${i}` })) },
        status: 400,
        code: "INVALID_REQUEST",
      },
      { name: "one job twice", body: { ...body, results: [item, item] }, status: 400, code: "INVALID_REQUEST" },
      { name: "results as an object", body: { ...body, results: item }, status: 400, code: "INVALID_REQUEST" },
      { name: "a result without jobId", body: withItem({ jobId: undefined }), status: 400, code: "INVALID_REQUEST" },
      { name: "a jobType no job has", body: withItem({ jobType: "essay" }), status: 400, code: "INVALID_REQUEST" },
      {
        name: "a job id with SQL in it",
        body: withItem({ jobId: "x' OR '1'='1" }),
        status: 400,
        code: "INVALID_REQUEST",
      },
      {
        name: "a result's output missing",
        body: withItem({ output: undefined }),
        status: 400,
        code: "INVALID_REQUEST",
      },
      { name: "a result's attemptNo 0", body: withItem({ attemptNo: 0 }), status: 400, code: "INVALID_REQUEST" },
    );
  } else {
    list.push(
      { name: "unknown job id", body, jobId: "job_does_not_exist", status: 404, code: "JOB_NOT_FOUND" },
      { name: "job id with SQL in it", body, jobId: "x' OR '1'='1", status: 404, code: "JOB_NOT_FOUND" },
    );
  }
  if (endpoint === "heartbeat") {
    list.push(
      { name: "progress 101", body: { ...body, progress: 101 }, status: 400, code: "INVALID_REQUEST" },
      { name: "progress -1", body: { ...body, progress: -1 }, status: 400, code: "INVALID_REQUEST" },
      { name: "progress 1.5", body: { ...body, progress: 1.5 }, status: 400, code: "INVALID_REQUEST" },
      { name: "attemptNo 0", body: { ...body, attemptNo: 0 }, status: 400, code: "INVALID_REQUEST" },
      { name: "attemptNo as a string", body: { ...body, attemptNo: "1" }, status: 400, code: "INVALID_REQUEST" },
      { name: "a wrong attemptNo", body: { ...body, attemptNo: 7 }, status: 409, code: "LOCK_LOST" },
    );
  }
  if (endpoint === "result") {
    list.push(
      { name: "output missing", body: { ...body, output: undefined }, status: 400, code: "INVALID_REQUEST" },
      { name: "output as an array", body: { ...body, output: [1, 2] }, status: 400, code: "INVALID_REQUEST" },
      { name: "negative latency", body: { ...body, latencyMs: -5 }, status: 400, code: "INVALID_REQUEST" },
    );
  }
  if (endpoint === "fail") {
    list.push(
      { name: "unknown error code", body: { ...body, errorCode: "OOPS" }, status: 400, code: "UNKNOWN_ERROR_CODE" },
      { name: "errorCode of the wrong type", body: { ...body, errorCode: 500 }, status: 400, code: "INVALID_REQUEST" },
    );
  }
  return list;
}

describe("hostile and malformed input on every Runtime endpoint", () => {
  let learner: Learner;
  let goodKey: string;
  let revokedKey: string;
  beforeAll(async () => {
    learner = await createLearner();
    goodKey = await runtimeKey();
    const revoked = await createRuntimeKey(uid("revoked"));
    await revokeRuntimeKey(revoked.id);
    revokedKey = revoked.key;
  });

  for (const endpoint of ENDPOINTS) {
    for (const c of cases(endpoint, "rt-fixed")) {
      it(`${endpoint}: ${c.name} → ${c.status} ${c.code}, nothing changed`, async () => {
        const rt = runtime(goodKey, uid("rt"));
        const job = await createTestJob(learner);
        expect((await rt.lock(job.id)).status).toBe(200);
        const before = await fingerprint(job.id);
        const jobsBefore = await getDb().aiRuntimeJob.count({ where: { status: { in: ["locked", "running"] } } });
        const body = JSON.parse(
          JSON.stringify(c.body ?? null)
            ?.replaceAll("rt-fixed", rt.id)
            .replaceAll("rt-job", job.id) ?? "null",
        );
        const key =
          c.key === "none" ? null : c.key === "wrong" ? "ajr_wrong" : c.key === "revoked" ? revokedKey : goodKey;
        const inPath = endpoint !== "poll" && endpoint !== "results";
        const res = await call(endpoint, inPath ? (c.jobId ?? job.id) : null, body, {
          key,
          rawBody: c.raw?.replaceAll("rt-fixed", rt.id),
          headers: c.headers,
        });
        expect(res.status).toBe(c.status);
        expect(res.body.error.code).toBe(c.code);
        expect(typeof res.body.error.message).toBe("string");
        expect(await fingerprint(job.id)).toEqual(before);
        expect(await getDb().aiRuntimeJob.count({ where: { status: { in: ["locked", "running"] } } })).toBe(jobsBefore);
      });
    }
  }

  it("a __proto__ key in the body is treated as data, not as an object prototype", async () => {
    const rt = runtime(goodKey, uid("rt"));
    const job = await createTestJob(learner);
    const raw = `{"__proto__": {"runtimeInstanceId": "evil"}, "runtimeInstanceId": "${rt.id}"}`;
    const res = await call("lock", job.id, null, { key: goodKey, rawBody: raw });
    expect(res.status).toBe(200);
    expect((await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: job.id } })).lockedBy).toBe(rt.id);
  });

  it("a revoked key stops working on the very next request", async () => {
    const created = await createRuntimeKey(uid("soon-revoked"));
    const rt = runtime(created.key, uid("rt"));
    expect((await rt.poll()).status).toBe(200);
    await revokeRuntimeKey(created.id);
    const res = await rt.poll();
    expect([res.status, res.body.error.code]).toEqual([401, "UNAUTHORIZED"]);
  });
});

describe("the key cache", () => {
  it("another app instance's revocation reaches this one through NOTIFY", async () => {
    const { getJobFeed } = await import("@/server/events/job-feed");
    const created = await createRuntimeKey(uid("cached"));
    const rt = runtime(created.key, uid("rt"));
    const feed = getJobFeed();
    await eventually("the job feed listening", async () => feed.connected);
    expect((await rt.poll()).status).toBe(200); // now cached
    // Revoke as another instance would: straight in the database, plus the NOTIFY.
    const seen = new Promise((r) => feed.once("key-revoked", r));
    await getDb().runtimeApiKey.update({ where: { id: created.id }, data: { revokedAt: new Date() } });
    await getDb().$executeRaw`SELECT pg_notify('runtime_key_events', ${created.id})`;
    await seen;
    expect((await rt.poll()).status).toBe(401);
  });
});
