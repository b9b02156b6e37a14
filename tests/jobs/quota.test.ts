import { afterEach, describe, expect, it } from "vitest";
import { POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { getDb } from "@/server/db";
import { advanceClock, now, resetClock } from "@/server/clock";
import { createJob } from "@/server/jobs/create";
import { consumeQuota, getJobQuotaUsage, windowOf } from "@/server/jobs/quota";
import { pruneFinishedJobs } from "@/server/jobs/retention";
import { APP_URL, callerAs, setPassword, signedInCookie } from "../helpers/auth";
import { trpcHttp } from "../helpers/trpc-route";
import { createLearner, createTestJob, uid, type Learner } from "../helpers/factories";

/**
 * Per-learner quotas on job creation. Limits are set small for this file
 * (configuration is read on every call); every test makes its own learner.
 */
process.env.QUOTA_JOBS_PER_HOUR = "5";
process.env.QUOTA_JOBS_PER_DAY = "8";
process.env.QUOTA_JOB_TYPE_PER_HOUR = "quiz_generation=2";

afterEach(() => resetClock());

const asLearner = (l: Learner, extra: Partial<Parameters<typeof createJob>[0]> = {}) =>
  createJob({
    userId: l.user.id,
    jobType: "learning_state_analysis",
    target: { type: "user", id: l.user.id },
    idempotencyKey: uid("k"),
    actor: { type: "learner", id: l.user.id },
    ...extra,
  });

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => "created",
    (e: { code?: string }) => e.code ?? String(e),
  );

const jobCount = (l: Learner) => getDb().aiRuntimeJob.count({ where: { userId: l.user.id } });

describe("job creation quotas", () => {
  it("20 concurrent creations against an hourly limit of 5: exactly 5 jobs, 15 × QUOTA_EXCEEDED", async () => {
    const l = await createLearner();
    const results = await Promise.all(Array.from({ length: 20 }, () => outcome(asLearner(l))));
    expect(results.filter((r) => r === "created")).toHaveLength(5);
    expect(results.filter((r) => r === "QUOTA_EXCEEDED")).toHaveLength(15);
    expect(await jobCount(l)).toBe(5);
    const usage = await getJobQuotaUsage(l.user.id);
    expect(usage.find((u) => u.metric === "jobs" && u.period === "hour")).toMatchObject({
      used: 5,
      remaining: 0,
      allowed: 5,
    });
  });

  it("one batched HTTP request of 12 creations: 5 created, the rest 429 QUOTA_EXCEEDED with the reset time", async () => {
    const l = await createLearner();
    await setPassword(l.user.id, "quota-password-123");
    const cookie = await signedInCookie(l.user.email, "quota-password-123");
    const n = 12;
    const body = Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        i,
        { jobType: "weak_point_analysis", target: { type: "user", id: l.user.id }, idempotencyKey: uid(`b${i}`) },
      ]),
    );
    const res = await trpcPost(
      new Request(`${APP_URL}/api/trpc/${Array(n).fill("jobs.create").join(",")}?batch=1`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie, origin: APP_URL },
        body: JSON.stringify(body),
      }),
    );
    const items = (await res.json()) as {
      result?: unknown;
      error?: { data: { httpStatus: number; appCode: string; details: { resetsAt: string } } };
    }[];
    expect(items).toHaveLength(n);
    const refused = items.filter((i) => i.error);
    expect(items.filter((i) => i.result)).toHaveLength(5);
    expect(refused).toHaveLength(7);
    const nextHour = windowOf("hour", now()).end.toISOString();
    for (const r of refused) {
      expect(r.error!.data).toMatchObject({ httpStatus: 429, appCode: "QUOTA_EXCEEDED" });
      expect(r.error!.data.details.resetsAt).toBe(nextHour);
    }
    expect(await jobCount(l)).toBe(5);
  });

  it("idempotent repeats are answered with the existing job and count once", async () => {
    const l = await createLearner();
    const key = uid("same");
    const first = await asLearner(l, { idempotencyKey: key });
    const repeats = await Promise.all(Array.from({ length: 10 }, () => asLearner(l, { idempotencyKey: key })));
    expect(repeats.every((r) => r.job.id === first.job.id && !r.created)).toBe(true);
    // Without a key, the same input in flight is the same job too.
    const a = await asLearner(l, { idempotencyKey: null, jobType: "weak_point_analysis" });
    const b = await asLearner(l, { idempotencyKey: null, jobType: "weak_point_analysis" });
    expect(b.job.id).toBe(a.job.id);
    const usage = await getJobQuotaUsage(l.user.id);
    expect(usage.find((u) => u.metric === "jobs" && u.period === "hour")!.used).toBe(2);
    // Even at the limit, a repeat still answers its job rather than 429.
    for (let i = 0; i < 3; i++) await asLearner(l);
    expect(await outcome(asLearner(l))).toBe("QUOTA_EXCEEDED");
    expect((await asLearner(l, { idempotencyKey: key })).job.id).toBe(first.job.id);
  });

  it("the hourly limit resets with the next UTC hour; the daily one holds until the next day", async () => {
    const l = await createLearner();
    for (let i = 0; i < 5; i++) await asLearner(l);
    const refused = await asLearner(l).catch((e) => e);
    expect(refused.code).toBe("QUOTA_EXCEEDED");
    expect(refused.details).toMatchObject({ metric: "jobs", period: "hour", allowed: 5, used: 5 });
    expect(refused.message).toMatch(/5 of your 5 analyses this hour/);
    advanceClock(new Date(refused.details.resetsAt).getTime() - now().getTime() + 1000);
    // A new hour, but the day has 8: only 3 more (unless the hour change was also a day change).
    const sameDay = windowOf("day", now()).start.getTime() === windowOf("day", new Date(Date.now())).start.getTime();
    const results: string[] = [];
    for (let i = 0; i < 5; i++) results.push(await outcome(asLearner(l)));
    expect(results.filter((r) => r === "created")).toHaveLength(sameDay ? 3 : 5);
  });

  it("a per-type limit: 2 quizzes an hour, other types unaffected", async () => {
    const l = await createLearner();
    const quiz = () => asLearner(l, { jobType: "quiz_generation", params: { count: 2 } });
    expect(await outcome(quiz())).toBe("created");
    expect(await outcome(quiz())).toBe("created");
    const third = await quiz().catch((e) => e);
    expect(third.code).toBe("QUOTA_EXCEEDED");
    expect(third.details).toMatchObject({ metric: "jobs:quiz_generation", period: "hour", allowed: 2 });
    expect(await outcome(asLearner(l, { jobType: "flashcard_generation" }))).toBe("created");
    // The refused quiz did not count against the overall limit: 3 used.
    expect((await getJobQuotaUsage(l.user.id)).find((u) => u.metric === "jobs" && u.period === "hour")!.used).toBe(3);
  });

  it("admin re-runs, scripts and workflows do not count; other learners are unaffected", async () => {
    const [l, other] = await Promise.all([createLearner(), createLearner()]);
    for (let i = 0; i < 5; i++) await asLearner(l);
    expect(await outcome(asLearner(l))).toBe("QUOTA_EXCEEDED");
    expect(await outcome(createTestJob(l, "weak_point_analysis", { actor: { type: "admin", id: "admin" } }))).toBe(
      "created",
    );
    expect(await outcome(createTestJob(l, "weak_point_analysis", { actor: { type: "workflow", id: "weekly" } }))).toBe(
      "created",
    );
    expect(await outcome(asLearner(other))).toBe("created");
  });

  it('"Run all five" with three left starts none and says so', async () => {
    const l = await createLearner();
    for (let i = 0; i < 2; i++) await asLearner(l);
    const before = await jobCount(l);
    const caller = callerAs({ ...l.user, role: "learner" });
    const err = await caller.analyses
      .trigger({
        target: { type: "user", id: l.user.id },
        jobTypes: [
          "learning_state_analysis",
          "weak_point_analysis",
          "next_action_planning",
          "quiz_generation",
          "flashcard_generation",
        ],
      })
      .catch((e) => e);
    expect(err.cause?.code).toBe("QUOTA_EXCEEDED");
    expect(await jobCount(l)).toBe(before);
  });

  it("an admin sees a learner's usage and raises the limit, audited; the learner's next request passes", async () => {
    const [l, admin] = await Promise.all([createLearner(), createLearner({ role: "admin" })]);
    for (let i = 0; i < 5; i++) await asLearner(l);
    expect(await outcome(asLearner(l))).toBe("QUOTA_EXCEEDED");
    const adminCaller = callerAs({ ...admin.user, role: "admin" });
    const view = await adminCaller.admin.quotas.get({ user: l.user.email });
    expect(view.user.id).toBe(l.user.id);
    expect(view.items.find((i) => i.metric === "jobs" && i.period === "hour")).toMatchObject({
      used: 5,
      allowed: 5,
      overridden: false,
    });
    const set = await adminCaller.admin.quotas.setLimit({
      userId: l.user.id,
      metric: "jobs",
      period: "hour",
      allowed: 7,
    });
    expect(set).toMatchObject({ allowed: 7, previous: null });
    expect(await outcome(asLearner(l))).toBe("created");
    expect(await outcome(asLearner(l))).toBe("created");
    expect(await outcome(asLearner(l))).toBe("QUOTA_EXCEEDED");
    const audit = await getDb().adminAuditLog.findFirst({
      where: { actorId: admin.user.id, action: "quota.set_limit" },
    });
    expect(audit?.scope).toMatchObject({
      userId: l.user.id,
      metric: "jobs",
      period: "hour",
      allowed: 7,
      previous: null,
    });
    // The learner sees the same numbers on their page.
    const mine = await callerAs({ ...l.user, role: "learner" }).quota.get();
    expect(mine.items.find((i) => i.metric === "jobs" && i.period === "hour")).toMatchObject({
      used: 7,
      allowed: 7,
      remaining: 0,
      overridden: true,
    });
    // Back to the default.
    await adminCaller.admin.quotas.setLimit({ userId: l.user.id, metric: "jobs", period: "hour", allowed: null });
    expect((await getJobQuotaUsage(l.user.id)).find((i) => i.metric === "jobs" && i.period === "hour")!.allowed).toBe(
      5,
    );
  });

  it("a learner cannot read another's usage or set limits", async () => {
    const [l, other] = await Promise.all([createLearner(), createLearner()]);
    const caller = callerAs({ ...other.user, role: "learner" });
    await expect(caller.admin.quotas.get({ user: l.user.email })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      caller.admin.quotas.setLimit({ userId: other.user.id, metric: "jobs", period: "day", allowed: 1000 }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await getDb().quotaLimit.count({ where: { userId: other.user.id } })).toBe(0);
  });

  it("a 429 over HTTP carries the error shape and a plain message", async () => {
    const l = await createLearner();
    await setPassword(l.user.id, "quota-password-456");
    const cookie = await signedInCookie(l.user.email, "quota-password-456");
    for (let i = 0; i < 5; i++) await asLearner(l);
    const res = await trpcHttp(
      "mutation",
      "jobs.create",
      { jobType: "weak_point_analysis", target: { type: "user", id: l.user.id } },
      { cookie, origin: APP_URL },
    );
    expect(res.status).toBe(429);
    expect(res.body.error.data.appCode).toBe("QUOTA_EXCEEDED");
    expect(res.body.error.message).toMatch(/you can start more after/);
  });

  it("the counter is generic: a token budget consumed in amounts is atomic under a race too", async () => {
    const l = await createLearner();
    const rule = { metric: "tokens", period: "day" as const, allowed: 10_000 };
    const spend = (n: number) => outcome(getDb().$transaction((tx) => consumeQuota(tx, l.user.id, [rule], n, now())));
    const results = await Promise.all(Array.from({ length: 12 }, () => spend(1500)));
    expect(results.filter((r) => r === "created")).toHaveLength(6);
    const row = await getDb().quotaUsage.findFirst({ where: { userId: l.user.id, metric: "tokens" } });
    expect(row?.used).toBe(9000);
    expect(await spend(20_000)).toBe("QUOTA_EXCEEDED");
  });

  it("the daily prune deletes counters of windows that ended more than a day ago, and only those", async () => {
    const l = await createLearner();
    await asLearner(l);
    const old = new Date(windowOf("day", now()).start.getTime() - 3 * 86_400_000);
    await getDb().quotaUsage.create({
      data: { userId: l.user.id, metric: "jobs", period: "day", windowStart: old, used: 3, updatedAt: old },
    });
    await pruneFinishedJobs();
    const left = await getDb().quotaUsage.findMany({ where: { userId: l.user.id } });
    expect(left.some((r) => r.windowStart.getTime() === old.getTime())).toBe(false);
    expect(left.filter((r) => r.metric === "jobs")).toHaveLength(2);
  });

  it("a refused creation writes nothing: no job, no snapshot, no counter change", async () => {
    const l = await createLearner();
    for (let i = 0; i < 5; i++) await asLearner(l);
    // New learner data, so the refused request would have captured a new snapshot.
    await getDb().material.update({
      where: { id: l.material.id },
      data: { content: "Changed after the limit was reached." },
    });
    const count = () =>
      Promise.all([
        getDb().snapshot.count({ where: { userId: l.user.id } }),
        jobCount(l),
        getDb().quotaUsage.findMany({ where: { userId: l.user.id }, orderBy: { metric: "asc" } }),
      ]);
    const before = await count();
    expect(await outcome(asLearner(l, { idempotencyKey: null }))).toBe("QUOTA_EXCEEDED");
    expect(await count()).toEqual(before);
  });
});
