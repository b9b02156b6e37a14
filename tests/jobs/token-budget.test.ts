import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { advanceClock, now, resetClock } from "@/server/clock";
import { setCredential } from "@/server/credentials";
import { createJob } from "@/server/jobs/create";
import { getJobQuotaUsage, windowOf } from "@/server/jobs/quota";
import { setQuotaLimit } from "@/server/admin/quotas";
import { createLearner, createTestJob, runtimeKey, uid, type Learner } from "../helpers/factories";
import { call, runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";

/**
 * A per-learner daily token budget on the platform key. Tokens are counted when
 * a platform-key attempt's usage is stored (result or fail); job creation refuses at or over it.
 * Job limits are set high here so only the budget can refuse.
 */
process.env.TOKEN_BUDGET_PER_DAY = "1000";
process.env.QUOTA_JOBS_PER_HOUR = "1000";
process.env.QUOTA_JOBS_PER_DAY = "1000";
process.env.QUOTA_JOB_TYPE_PER_HOUR = "none";

afterEach(() => resetClock());

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => "created",
    (e: { code?: string }) => e.code ?? String(e),
  );

const tokensRow = async (l: Learner) => (await getJobQuotaUsage(l.user.id)).find((u) => u.metric === "tokens")!;
const jobCount = (l: Learner) => getDb().aiRuntimeJob.count({ where: { userId: l.user.id } });

/** Creates a job as the learner, runs it on a Runtime and reports `tokens` of usage with its result. */
async function spend(
  l: Learner,
  promptTokens: number,
  completionTokens: number,
  extra: Parameters<typeof createTestJob>[2] = {},
) {
  const job = await createTestJob(l, "weak_point_analysis", extra);
  const rt = runtime(await runtimeKey(), uid("rt"));
  expect((await rt.lock(job.id)).status).toBe(200);
  const res = await rt.result(
    job.id,
    1,
    validOutput(
      "weak_point_analysis",
      l.knowledgePoints.map((k) => k.id),
    ),
    {
      usage: { provider: "deepseek", model: "deepseek-chat", promptTokens, completionTokens },
    },
  );
  expect(res.status).toBe(200);
  return { job, rt };
}

describe("daily token budget on the platform key", () => {
  it("usage stored for platform-key attempts exhausts the budget; the next creation is 429 QUOTA_EXCEEDED with the reset time", async () => {
    const l = await createLearner();
    await spend(l, 300, 200);
    expect(await tokensRow(l)).toMatchObject({ used: 500, allowed: 1000, remaining: 500, period: "day" });
    const { job, rt } = await spend(l, 400, 100);
    // A repeated result report of the same attempt is idempotent and adds nothing.
    await rt.result(
      job.id,
      1,
      validOutput(
        "weak_point_analysis",
        l.knowledgePoints.map((k) => k.id),
      ),
      { usage: { promptTokens: 400, completionTokens: 100 } },
    );
    expect((await tokensRow(l)).used).toBe(1000);
    const before = await jobCount(l);
    // New quiz history, so a snapshot stored for this attempt would be a new row.
    await getDb().quizAttempt.create({
      data: {
        userId: l.user.id,
        knowledgePointId: l.knowledgePoints[0]!.id,
        question: "New",
        correct: true,
        answeredAt: now(),
      },
    });
    const snapshots = await getDb().snapshot.count({ where: { userId: l.user.id } });
    const err = await createTestJob(l, "weak_point_analysis").catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "QUOTA_EXCEEDED",
      details: { metric: "tokens", period: "day", allowed: 1000, used: 1000 },
    });
    expect((err as { details: { resetsAt: string } }).details.resetsAt).toBe(windowOf("day", now()).end.toISOString());
    expect((err as Error).message).toMatch(/today's AI budget/);
    expect(await jobCount(l)).toBe(before);
    // Nor is its snapshot stored: the refusal writes nothing.
    expect(await getDb().snapshot.count({ where: { userId: l.user.id } })).toBe(snapshots);
  });

  it("a failed attempt's usage counts too", async () => {
    const l = await createLearner();
    const job = await createTestJob(l, "quiz_generation");
    const key = await runtimeKey();
    const rtId = uid("rt");
    expect((await runtime(key, rtId).lock(job.id)).status).toBe(200);
    const res = await call(
      "fail",
      job.id,
      {
        runtimeInstanceId: rtId,
        attemptNo: 1,
        errorCode: "MODEL_TIMEOUT",
        errorMessage: "slow",
        usage: { promptTokens: 1200, completionTokens: 0 },
      },
      { key },
    );
    expect(res.status).toBe(200);
    expect((await tokensRow(l)).used).toBe(1200);
    expect(await outcome(createTestJob(l))).toBe("QUOTA_EXCEEDED");
  });

  it("jobs on the learner's own DeepSeek key neither count nor are refused", async () => {
    const l = await createLearner();
    await setCredential(l.user.id, "sk-test-own-key-0000000000001234");
    await spend(l, 5000, 5000, { apiKeyMode: "user_deepseek_key" });
    expect((await tokensRow(l)).used).toBe(0);
    await spend(l, 1000, 0);
    expect((await tokensRow(l)).used).toBe(1000);
    expect(await outcome(createTestJob(l))).toBe("QUOTA_EXCEEDED");
    expect(await outcome(createTestJob(l, "weak_point_analysis", { apiKeyMode: "user_deepseek_key" }))).toBe("created");
  });

  it("admin re-runs and scripts are not refused; an admin raising the budget lets the learner go on; the next UTC day starts at zero", async () => {
    const l = await createLearner();
    await spend(l, 1000, 500);
    expect(await outcome(createTestJob(l))).toBe("QUOTA_EXCEEDED");
    expect(await outcome(createTestJob(l, "learning_state_analysis", { actor: { type: "admin", id: "admin" } }))).toBe(
      "created",
    );
    const admin = await createLearner({ role: "admin" });
    await setQuotaLimit({ actorId: admin.user.id, userId: l.user.id, metric: "tokens", period: "day", allowed: 2000 });
    expect(await tokensRow(l)).toMatchObject({ used: 1500, allowed: 2000, overridden: true });
    expect(await outcome(createTestJob(l))).toBe("created");
    await setQuotaLimit({ actorId: admin.user.id, userId: l.user.id, metric: "tokens", period: "day", allowed: null });
    expect(await outcome(createTestJob(l))).toBe("QUOTA_EXCEEDED");
    advanceClock(windowOf("day", now()).end.getTime() - now().getTime() + 1000);
    expect((await tokensRow(l)).used).toBe(0);
    expect(await outcome(createTestJob(l))).toBe("created");
  });

  it("huge reported counts cap the counter instead of failing the report", async () => {
    const l = await createLearner();
    await spend(l, 1_000_000_000, 1_000_000_000);
    await spend(l, 1_000_000_000, 1_000_000_000, { actor: { type: "admin", id: "admin" } });
    expect((await tokensRow(l)).used).toBe(2_147_483_647);
  });
});

describe("races at the edge of the budget", () => {
  it("20 concurrent usage reports add up exactly (no lost update), and then 10 concurrent creations are all refused", async () => {
    const l = await createLearner();
    const admin = await createLearner({ role: "admin" });
    await setQuotaLimit({ actorId: admin.user.id, userId: l.user.id, metric: "tokens", period: "day", allowed: 2000 });
    const key = await runtimeKey();
    const jobs = await Promise.all(Array.from({ length: 20 }, () => createTestJob(l, "weak_point_analysis")));
    const rts = jobs.map(() => runtime(key, uid("rt")));
    await Promise.all(jobs.map((j, i) => rts[i]!.lock(j.id)));
    const kpIds = l.knowledgePoints.map((k) => k.id);
    const results = await Promise.all(
      jobs.map((j, i) =>
        rts[i]!.result(j.id, 1, validOutput("weak_point_analysis", kpIds), {
          usage: { promptTokens: 60, completionTokens: 40 },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect((await tokensRow(l)).used).toBe(2000);
    const before = await jobCount(l);
    const creates = await Promise.all(Array.from({ length: 10 }, () => outcome(createTestJob(l))));
    expect(creates).toEqual(Array(10).fill("QUOTA_EXCEEDED"));
    expect(await jobCount(l)).toBe(before);
  });

  it("one token under the budget, 10 concurrent creations are all admitted (the budget counts spent tokens), and the next one after their usage is refused", async () => {
    const l = await createLearner();
    await spend(l, 999, 0);
    const creates = await Promise.all(
      Array.from({ length: 10 }, () =>
        createJob({
          userId: l.user.id,
          jobType: "learning_state_analysis",
          target: { type: "user", id: l.user.id },
          idempotencyKey: uid("k"),
          actor: { type: "learner", id: l.user.id },
        }),
      ),
    );
    expect(creates.every((c) => c.created)).toBe(true);
    const key = await runtimeKey();
    const rt = runtime(key, uid("rt"));
    const first = creates[0]!.job;
    expect((await rt.lock(first.id)).status).toBe(200);
    await rt.result(
      first.id,
      1,
      validOutput(
        "learning_state_analysis",
        l.knowledgePoints.map((k) => k.id),
      ),
      { usage: { promptTokens: 1, completionTokens: 0 } },
    );
    expect((await tokensRow(l)).used).toBe(1000);
    expect(await outcome(createTestJob(l))).toBe("QUOTA_EXCEEDED");
  });
});
