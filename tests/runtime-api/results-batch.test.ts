import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobFeed, type JobChange } from "@/server/events/job-feed";
import { getDb } from "@/server/db";
import { cancelJob } from "@/server/jobs/cancel";
import { getJobQuotaUsage } from "@/server/jobs/quota";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { eventually } from "../helpers/eventually";

/**
 * POST /internal/runtime/jobs/results: several results in one request, each answered exactly as
 * its own POST /{jobId}/result would be, fenced on its own lease, stored together when valid.
 */
process.env.TOKEN_BUDGET_PER_DAY = "100000";

type Rt = ReturnType<typeof runtime>;

async function held(learner: Learner, rt: Rt, n: number) {
  const jobs = [];
  for (let i = 0; i < n; i++) {
    const job = await createTestJob(learner, "weak_point_analysis");
    const lock = await rt.lock(job.id);
    expect(lock.status).toBe(200);
    jobs.push({ id: job.id, attemptNo: lock.body.job.attemptNo as number });
  }
  return jobs;
}

const outputFor = (l: Learner) =>
  validOutput(
    "weak_point_analysis",
    l.knowledgePoints.map((k) => k.id),
  );

const item = (l: Learner, j: { id: string; attemptNo: number }, extra: Record<string, unknown> = {}) => ({
  jobId: j.id,
  jobType: "weak_point_analysis",
  attemptNo: j.attemptNo,
  output: outputFor(l),
  ...extra,
});

describe("several results in one request", () => {
  let feed: JobFeed;
  const changes: JobChange[] = [];
  beforeAll(async () => {
    feed = new JobFeed(process.env.DATABASE_URL!).start();
    feed.on("change", (c: JobChange) => changes.push(c));
    await eventually("the job feed listening", async () => feed.connected);
  });
  afterAll(() => feed.stop());

  it("stores each held job's result, event, push and usage; the learner's tokens add up", async () => {
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const jobs = await held(learner, rt, 3);
    const usage = (n: number) => ({ provider: "deepseek", model: "m", promptTokens: n, completionTokens: 1 });
    const res = await rt.results(
      jobs.map((j, i) => item(learner, j, { usage: usage(10 * (i + 1)), modelName: `m${i}` })),
    );
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { jobId: string; httpStatus: number }) => [r.jobId, r.httpStatus])).toEqual(
      jobs.map((j) => [j.id, 200]),
    );
    for (const [i, j] of jobs.entries()) {
      const row = await jobRow(j.id);
      expect(row.status).toBe("succeeded");
      expect([row.lockedBy, row.lockUntil, row.progress]).toEqual([null, null, 100]);
      expect(row.result!.id).toBe(res.body.results[i].body.resultId);
      expect(row.result!.modelName).toBe(`m${i}`);
      expect(row.result!.output).toEqual(outputFor(learner));
      expect(row.events.at(-1)).toMatchObject({ fromStatus: "locked", toStatus: "succeeded", actorId: rt.id });
      const used = await getDb().jobUsage.findMany({ where: { jobId: j.id } });
      expect(used.map((u) => [u.attemptNo, u.promptTokens, u.outcome])).toEqual([[1, 10 * (i + 1), "succeeded"]]);
    }
    // One transaction wrote the three results (the valid results of held jobs commit together).
    const writers = await getDb().$queryRaw<{ xmin: string }[]>`
      SELECT DISTINCT xmin::text FROM "AiRuntimeResult" WHERE "jobId" = ANY(${jobs.map((j) => j.id)}::text[])`;
    expect(writers).toHaveLength(1);
    // Each job's success is pushed to listeners on its own.
    await eventually("three pushes of success", async () =>
      jobs.every((j) => changes.some((c) => c.id === j.id && c.status === "succeeded")),
    );
    // Three attempts of one learner in one statement: one budget row, their sum (10+1 + 20+1 + 30+1).
    const tokens = (await getJobQuotaUsage(learner.user.id)).find((u) => u.metric === "tokens")!;
    expect(tokens.used).toBe(63);
  });

  it("answers each result as its own request would, in order; one refusal changes none of the others", async () => {
    const learner = await createLearner();
    const key = await runtimeKey();
    const rt = runtime(key, uid("rt"));
    const other = runtime(key, uid("other"));
    const [ok, invalid, wrongAttempt, cancelled, repeat] = await held(learner, rt, 5);
    const [othersJob] = await held(learner, other, 1);
    expect((await rt.results([item(learner, repeat!)])).body.results[0].httpStatus).toBe(200);
    await cancelJob(cancelled!.id, { type: "learner", id: learner.user.id }, { ownerId: learner.user.id });

    const res = await rt.results([
      item(learner, ok!),
      item(learner, invalid!, { output: { weakPoints: "not a list" } }),
      item(learner, { ...wrongAttempt!, attemptNo: 7 }),
      item(learner, othersJob!),
      item(learner, { id: "job_does_not_exist", attemptNo: 1 }),
      item(learner, cancelled!),
      item(learner, repeat!),
    ]);
    expect(res.status).toBe(200);
    type Answer = { jobId: string; httpStatus: number; body: { error?: { code: string }; idempotent?: boolean } };
    const got = res.body.results.map((r: Answer) => [r.jobId, r.httpStatus, r.body.error?.code ?? r.body.idempotent]);
    expect(got).toEqual([
      [ok!.id, 200, false],
      [invalid!.id, 422, "INVALID_SCHEMA"],
      [wrongAttempt!.id, 409, "LOCK_LOST"],
      [othersJob!.id, 409, "LOCK_LOST"],
      ["job_does_not_exist", 404, "JOB_NOT_FOUND"],
      [cancelled!.id, 409, "JOB_CANCELLED"],
      [repeat!.id, 200, true],
    ]);
    expect(res.body.results[1].body.error.details.length).toBeGreaterThan(0);
    const status = async (id: string) => (await jobRow(id)).status;
    expect(await status(ok!.id)).toBe("succeeded");
    expect(await status(invalid!.id)).toBe("failed");
    expect(await status(wrongAttempt!.id)).toBe("locked");
    expect(await status(othersJob!.id)).toBe("locked");
    expect(await status(cancelled!.id)).toBe("cancelled");
    expect(
      await getDb().aiRuntimeResult.count({
        where: { jobId: { in: [wrongAttempt!.id, othersJob!.id, cancelled!.id] } },
      }),
    ).toBe(0);
  });

  it("a lease that has passed, or one taken under another key, is LOCK_LOST and keeps no result", async () => {
    const learner = await createLearner();
    const instance = uid("rt");
    const rt = runtime(await runtimeKey(), instance);
    const [passed, keyed] = await held(learner, rt, 2);
    await getDb().aiRuntimeJob.update({ where: { id: passed!.id }, data: { lockUntil: new Date(Date.now() - 1000) } });
    const sameNameOtherKey = runtime(await runtimeKey(), instance);
    const res = await sameNameOtherKey.results([item(learner, keyed!)]);
    // Another key learns nothing of the job: the answer of a job that does not exist.
    expect([res.body.results[0].httpStatus, res.body.results[0].body.error]).toEqual([
      404,
      { code: "JOB_NOT_FOUND", message: `job ${keyed!.id} not found` },
    ]);
    const late = await rt.results([item(learner, passed!)]);
    expect([late.body.results[0].httpStatus, late.body.results[0].body.error.code]).toEqual([409, "LOCK_LOST"]);
    expect(await getDb().aiRuntimeResult.count({ where: { jobId: { in: [passed!.id, keyed!.id] } } })).toBe(0);
  });

  it("an item naming another type than its job's is refused (422) and fails the job, as any refused output; an item without jobType is read as its job's type", async () => {
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const [job, other] = await held(learner, rt, 2);
    const quiz = validOutput(
      "quiz_generation",
      learner.knowledgePoints.map((k) => k.id),
      { count: 1 },
    );
    const res = await rt.results([
      item(learner, job!, { jobType: "quiz_generation", output: quiz }),
      item(learner, other!),
    ]);
    expect(res.status).toBe(200);
    const [mistyped, fine] = res.body.results;
    expect([mistyped.httpStatus, mistyped.body.error.code, mistyped.body.error.details]).toEqual([
      422,
      "INVALID_SCHEMA",
      [
        {
          path: "jobType",
          rule: "job_type_mismatch",
          message: "the job is a weak_point_analysis job, not quiz_generation",
        },
      ],
    ]);
    expect(fine.httpStatus).toBe(200);
    expect(await getDb().aiRuntimeResult.count({ where: { jobId: job!.id } })).toBe(0);
    // The 422 has one meaning: the job has failed INVALID_SCHEMA, with the broken rule kept at the attempt.
    expect(await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: job!.id } })).toMatchObject({
      status: "failed",
      errorCode: "INVALID_SCHEMA",
    });
    const [third] = await held(learner, rt, 1);
    const { jobType: _omitted, ...untyped } = item(learner, third!);
    const accepted = await rt.results([untyped]);
    expect([accepted.status, accepted.body.results[0].httpStatus]).toEqual([200, 200]);
  });

  it("the whole batch again is idempotent: the same result ids, nothing written twice", async () => {
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const jobs = await held(learner, rt, 4);
    const body = jobs.map((j) => item(learner, j, { usage: { promptTokens: 5 } }));
    const first = await rt.results(body);
    const again = await rt.results(body);
    const ids = (r: typeof first) => r.body.results.map((x: { body: { resultId: string } }) => x.body.resultId);
    expect(ids(again)).toEqual(ids(first));
    expect(again.body.results.every((x: { body: { idempotent: boolean } }) => x.body.idempotent)).toBe(true);
    const where = { jobId: { in: jobs.map((j) => j.id) } };
    expect(await getDb().aiRuntimeResult.count({ where })).toBe(4);
    expect(await getDb().jobUsage.count({ where })).toBe(4);
    expect(await getDb().jobEvent.count({ where: { ...where, toStatus: "succeeded" } })).toBe(4);
  });

  it("racing: the same batch twice at once and each result alone, one result per job, one success each", async () => {
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const jobs = await held(learner, rt, 10);
    const body = jobs.map((j) => item(learner, j));
    const answers = await Promise.all([
      rt.results(body),
      rt.results([...body].reverse()),
      ...body.map((b) => rt.result(b.jobId, b.attemptNo, b.output)),
    ]);
    for (const j of jobs) {
      const perJob = [
        ...answers.slice(0, 2).map((a) => a.body.results.find((r: { jobId: string }) => r.jobId === j.id).body),
        answers[2 + jobs.indexOf(j)]!.body,
      ];
      expect(perJob.map((b) => b.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
      expect(perJob.filter((b) => !b.idempotent)).toHaveLength(1);
      expect(new Set(perJob.map((b) => b.resultId)).size).toBe(1);
    }
    const where = { jobId: { in: jobs.map((j) => j.id) } };
    expect(await getDb().aiRuntimeResult.count({ where })).toBe(10);
    expect(await getDb().jobEvent.count({ where: { ...where, toStatus: "succeeded" } })).toBe(10);
  });

  it("a job another transaction holds does not hold up the rest: those commit, it follows once free", async () => {
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("rt"));
    const jobs = await held(learner, rt, 3);
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query(`SELECT 1 FROM "AiRuntimeJob" WHERE id = $1 FOR UPDATE`, [jobs[1]!.id]);
      const answer = rt.results(jobs.map((j) => item(learner, j)));
      // The two free jobs are stored while the third's row is still locked by the other transaction.
      await eventually("the free jobs stored", async () => {
        const rows = await getDb().aiRuntimeJob.findMany({ where: { id: { in: [jobs[0]!.id, jobs[2]!.id] } } });
        return rows.every((r) => r.status === "succeeded");
      });
      expect((await jobRow(jobs[1]!.id)).status).toBe("locked");
      await other.query("COMMIT");
      const res = await answer;
      expect(res.body.results.map((r: { httpStatus: number }) => r.httpStatus)).toEqual([200, 200, 200]);
      expect((await jobRow(jobs[1]!.id)).status).toBe("succeeded");
    } finally {
      await other.end();
    }
  });
});
