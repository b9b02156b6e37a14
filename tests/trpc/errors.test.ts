import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError, ERROR_CODES, type ErrorCode } from "@/server/errors";
import { describeError, toTRPCError } from "@/server/trpc/errors";
import { setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, createTestJob, uid, type Learner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { trpcHttp } from "../helpers/trpc-route";

/** One mapping from domain codes to tRPC codes and HTTP statuses, seen through the real route. */
describe("the AppError mapping", () => {
  it.each(Object.keys(ERROR_CODES) as ErrorCode[])("%s keeps its tRPC code and HTTP status", (code) => {
    const err = toTRPCError(new AppError(code, `about ${code}`, { hint: 1 }));
    expect(err.code).toBe(ERROR_CODES[code].trpc);
    expect(describeError(err)).toEqual({
      appCode: code,
      httpStatus: ERROR_CODES[code].status,
      message: `about ${code}`,
      details: { hint: 1 },
    });
  });

  it("an unknown error leaves as a generic 500 without its message or stack", () => {
    const err = new TRPCError({
      code: "INTERNAL_SERVER_ERROR",
      cause: new Error("connection string postgres://secret@db"),
    });
    const described = describeError(err);
    expect(described).toEqual({ appCode: "INTERNAL", httpStatus: 500, message: "internal error" });
  });
});

describe("errors over HTTP", () => {
  let a: Learner;
  let b: Learner;
  let cookieA: string;
  let cookieB: string;
  let cookieAdmin: string;

  afterAll(() => releaseJobsOf([a, b]));

  beforeAll(async () => {
    const admin = await createLearner({ role: "admin" });
    [a, b] = await Promise.all([createLearner(), createLearner()]);
    const password = `pw-${uid()}`;
    await Promise.all([a, b, admin].map((l) => setPassword(l.user.id, password)));
    [cookieA, cookieB, cookieAdmin] = (await Promise.all(
      [a, b, admin].map((l) => signedInCookie(l.user.email, password)),
    )) as [string, string, string];
  });

  function expectError(res: Awaited<ReturnType<typeof trpcHttp>>, status: number, appCode: string) {
    expect(res.status).toBe(status);
    expect(res.body.error.data.appCode).toBe(appCode);
    expect(res.body.error.data.httpStatus).toBe(status);
    expect(res.text).not.toMatch(/"stack"|at .*\.ts:\d+/);
  }

  it("another learner's job is 404 JOB_NOT_FOUND", async () => {
    const job = await createTestJob(a);
    expectError(await trpcHttp("query", "jobs.get", { jobId: job.id }, { cookie: cookieB }), 404, "JOB_NOT_FOUND");
    const own = await trpcHttp("query", "jobs.get", { jobId: job.id }, { cookie: cookieA });
    expect(own.status).toBe(200);
    expect(own.body.result.data.job.id).toBe(job.id);
    expect(own.headers.get("cache-control")).toBe("no-store");
  });

  it("bad input is 400 INVALID_REQUEST with the failing paths, and nothing is written", async () => {
    const res = await trpcHttp(
      "mutation",
      "jobs.create",
      { jobType: "no_such_type", target: { type: "user" } },
      { cookie: cookieA },
    );
    expectError(res, 400, "INVALID_REQUEST");
    expect(res.body.error.data.details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining(["jobType", "target.id"]),
    );
  });

  it("bad job params are 400 INVALID_PARAMS from the domain", async () => {
    const res = await trpcHttp(
      "mutation",
      "jobs.create",
      { jobType: "quiz_generation", target: { type: "user", id: a.user.id }, params: { count: 500 } },
      { cookie: cookieA },
    );
    expectError(res, 400, "INVALID_PARAMS");
  });

  it("no session is 401, a learner at an admin procedure 403", async () => {
    expectError(await trpcHttp("query", "jobs.list", {}), 401, "UNAUTHORIZED");
    expectError(await trpcHttp("query", "admin.explorer.list", {}, { cookie: cookieA }), 403, "FORBIDDEN");
    expect((await trpcHttp("query", "admin.explorer.list", {}, { cookie: cookieAdmin })).status).toBe(200);
  });

  it("domain conflicts keep their codes: a pending job is not re-runnable (409)", async () => {
    const job = await createTestJob(a);
    expectError(
      await trpcHttp("mutation", "admin.jobs.rerun", { jobId: job.id }, { cookie: cookieAdmin }),
      409,
      "JOB_NOT_RERUNNABLE",
    );
  });

  it("choosing the own-key mode without a key is 400 CREDENTIAL_REQUIRED", async () => {
    expectError(
      await trpcHttp("mutation", "consent.setApiKeyMode", { apiKeyMode: "user_deepseek_key" }, { cookie: cookieB }),
      400,
      "CREDENTIAL_REQUIRED",
    );
  });

  it("an unknown procedure is 404; a mutation sent as a query is refused and runs nothing", async () => {
    expectError(await trpcHttp("query", "jobs.nope", {}, { cookie: cookieA }), 404, "NOT_FOUND");
    const res = await trpcHttp("query", "consent.set", { granted: false }, { cookie: cookieA });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.data.httpStatus).toBe(res.status);
    expect((await trpcHttp("query", "consent.get", undefined, { cookie: cookieA })).body.result.data.granted).toBe(
      true,
    );
  });
});
