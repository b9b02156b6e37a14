import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, createTestJob, uid, type Learner } from "../helpers/factories";
import { trpcHttp } from "../helpers/trpc-route";
import { platform, serviceKey } from "../helpers/platform-api";
import { isDatabaseUnavailable } from "@/server/errors";

/**
 * A creation that cannot get its rows in time (here: another connection holds
 * the learner's quota counter FOR UPDATE) is rolled back at its deadline and answered 503
 * UNAVAILABLE with Retry-After — never a 500 — and writes nothing.
 */
process.env.JOB_CREATE_TIMEOUT_MS = "800";

describe("job creation under a database that cannot answer in time", () => {
  let l: Learner;
  let cookie: string;
  let holder: pg.Client;

  beforeAll(async () => {
    l = await createLearner();
    await setPassword(l.user.id, "busy-password-123");
    cookie = await signedInCookie(l.user.email, "busy-password-123");
    await createTestJob(l); // the learner's counters for this hour and day now exist
    holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
  });
  afterAll(() => holder.end());

  const snapshot = async () => ({
    jobs: await getDb().aiRuntimeJob.count({ where: { userId: l.user.id } }),
    events: await getDb().jobEvent.count({ where: { job: { userId: l.user.id } } }),
    used: (await getDb().quotaUsage.findMany({ where: { userId: l.user.id }, orderBy: { metric: "asc" } })).map((u) => [
      u.metric,
      u.period,
      u.used,
    ]),
  });

  it.each([
    ["jobs.create", { jobType: "weak_point_analysis", target: { type: "user" }, idempotencyKey: "busy" }],
    ["analyses.trigger", { target: { type: "user" }, jobTypes: ["quiz_generation", "flashcard_generation"] }],
  ])("%s with the quota row locked: 503 UNAVAILABLE, Retry-After, nothing written", async (path, body) => {
    const input = JSON.parse(JSON.stringify(body).replace('{"type":"user"}', `{"type":"user","id":"${l.user.id}"}`));
    const before = await snapshot();
    await holder.query("BEGIN");
    await holder.query(`SELECT * FROM "QuotaUsage" WHERE "userId" = $1 FOR UPDATE`, [l.user.id]);
    let res: Awaited<ReturnType<typeof trpcHttp>>;
    try {
      res = await trpcHttp("mutation", path, input, { cookie });
    } finally {
      await holder.query("ROLLBACK");
    }
    expect(res.status).toBe(503);
    expect(res.body.error.data.appCode).toBe("UNAVAILABLE");
    expect(res.body.error.data.httpStatus).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.text).not.toMatch(/"stack"|at .*\.ts:\d+|QuotaUsage/);
    expect(await snapshot()).toEqual(before);
    // The lock gone, the same request goes through.
    const again = await trpcHttp("mutation", path, input, { cookie });
    expect(again.status).toBe(200);
  });

  it("the platform API's job start with the quota row locked: 503 UNAVAILABLE, Retry-After, nothing written", async () => {
    const ext = `busy-${l.user.id}`;
    await getDb().user.update({ where: { id: l.user.id }, data: { externalId: ext } });
    const api = platform(await serviceKey());
    const body = { jobType: "next_action_planning", target: { type: "user" }, idempotencyKey: "busy-platform" };
    const before = await snapshot();
    await holder.query("BEGIN");
    await holder.query(`SELECT * FROM "QuotaUsage" WHERE "userId" = $1 FOR UPDATE`, [l.user.id]);
    let res: Awaited<ReturnType<typeof api.startJob>>;
    try {
      res = await api.startJob(ext, body);
    } finally {
      await holder.query("ROLLBACK");
    }
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("UNAVAILABLE");
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await snapshot()).toEqual(before);
    expect((await api.startJob(ext, body)).status).toBeLessThan(300);
  });

  it("classifies the database's transient refusals, and nothing else, as unavailable", () => {
    for (const e of [
      { code: "P2028", message: "Transaction API error: Transaction already closed" },
      { code: "P2010", meta: { code: "55P03", message: "canceling statement due to lock timeout" } },
      { name: "DriverAdapterError", cause: { originalCode: "57014", kind: "postgres" } },
      new Error("Connection terminated unexpectedly"),
    ])
      expect(isDatabaseUnavailable(e), JSON.stringify(e)).toBe(true);
    for (const e of [
      new TypeError("Cannot read properties of null (reading 'id')"),
      { code: "P2002", meta: { target: ["id"] } },
      { code: "23505" },
      null,
      uid(),
    ])
      expect(isDatabaseUnavailable(e), JSON.stringify(e)).toBe(false);
  });
});
