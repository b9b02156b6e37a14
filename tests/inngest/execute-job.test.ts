import { afterEach, describe, expect, it } from "vitest";
import { InngestTestEngine } from "@inngest/test";
import { createLearner, createTestJob, jobRow } from "../helpers/factories";
import { startFakeOpenAI } from "../providers/fake-openai-server";
import { advanceClock, now, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { executeJobFn } from "@/server/inngest/functions/execute-job";
import { executeJob, type Step } from "@/server/worker/execute";
import { analyse } from "@/server/providers/local";
import type { SnapshotContent } from "@/server/job-types/fields";
import type { Locale } from "@/server/i18n/locales";

const ENV = { INNGEST_WORKER_JOB_TYPES: "*", INNGEST_WORKER_PROVIDER: "local", INNGEST_WORKER_ID: "inngest-worker" };
Object.assign(process.env, ENV);

function created(job: { id: string; userId: string; jobType: string }) {
  return [{ name: "ai/job.created", data: { jobId: job.id, userId: job.userId, jobType: job.jobType } }] as never;
}

afterEach(() => {
  resetClock();
  Object.assign(process.env, ENV);
  for (const k of ["DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL"]) delete process.env[k];
});

describe("execute-job (the in-app Inngest worker)", () => {
  it("takes a pending job through lock, the four stages as steps, and the result: pending → succeeded", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "quiz_generation", { params: { count: 3 } });
    const t = new InngestTestEngine({ function: executeJobFn, events: created(job) });
    const { result, ctx } = await t.execute();
    expect(result).toMatchObject({ outcome: "succeeded", attempts: 1 });
    const stepIds = (ctx.step.run as unknown as { mock: { calls: [string][] } }).mock.calls.map((c) => c[0]);
    expect(stepIds).toEqual([
      "find-job",
      "lock-job",
      "prompt-builder",
      "model-inference",
      "quality-check",
      "format-adapter",
      "submit-result",
    ]);
    const row = await jobRow(job.id);
    expect(row.status).toBe("succeeded");
    expect(row.result?.modelProvider).toBe("local");
    // The local analyzer reports its own usage: zero tokens, its time.
    expect(await getDb().jobUsage.findMany({ where: { jobId: job.id } })).toMatchObject([
      {
        attemptNo: 1,
        outcome: "succeeded",
        provider: "local",
        model: "local-analyzer-1",
        promptTokens: 0,
        completionTokens: 0,
      },
    ]);
    expect(row.events.map((e) => [e.toStatus, e.actorId])).toEqual([
      ["pending", learner.user.id],
      ["locked", "inngest-worker"],
      ["running", "inngest-worker"],
      ["succeeded", "inngest-worker"],
    ]);
  });

  it("two executors racing on one job: it runs once", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const [a, b] = await Promise.all([
      new InngestTestEngine({ function: executeJobFn, events: created(job) }).execute(),
      new InngestTestEngine({ function: executeJobFn, events: created(job) }).execute(),
    ]);
    const outcomes = [a.result, b.result].map((r) => (r as { outcome: string }).outcome).sort();
    expect(outcomes).toEqual(["skipped", "succeeded"]);
    expect(await getDb().aiRuntimeResult.count({ where: { jobId: job.id } })).toBe(1);
    expect((await jobRow(job.id)).attemptNo).toBe(1);
  });

  it("the quality loop runs as steps: malformed model answers go back to prompt-builder, then the good one is submitted", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    // The good answer agrees with the learner's evidence (the quality stage's evidence rules): the
    // offline analysis of the job's own snapshot, as of its capture.
    const snapshot = await getDb().snapshot.findUniqueOrThrow({ where: { id: (await jobRow(job.id)).snapshotId! } });
    const good = JSON.stringify(
      analyse("weak_point_analysis", snapshot.content as SnapshotContent, {}, snapshot.createdAt, job.locale as Locale),
    );
    const fake = await startFakeOpenAI([
      { content: "not json" },
      { content: '{"weakPoints": "wrong"}' },
      { content: good },
    ]);
    Object.assign(process.env, {
      INNGEST_WORKER_PROVIDER: "deepseek",
      DEEPSEEK_API_KEY: "sk-test",
      DEEPSEEK_BASE_URL: fake.url,
    });
    try {
      const { result, ctx } = await new InngestTestEngine({ function: executeJobFn, events: created(job) }).execute();
      expect(result).toMatchObject({ outcome: "succeeded" });
      const ids = (ctx.step.run as unknown as { mock: { calls: [string][] } }).mock.calls.map((c) => c[0]);
      expect(ids.filter((id) => id === "prompt-builder")).toHaveLength(3);
      expect(ids.filter((id) => id === "model-inference")).toHaveLength(3);
      expect(fake.requests).toHaveLength(3);
      // The findings of the failed checks went into the next prompt.
      expect(JSON.stringify(fake.requests[1]!.body.messages)).toMatch(/JSON|weakPoints/);
      expect((await jobRow(job.id)).result?.modelProvider).toBe("deepseek");
    } finally {
      await fake.close();
    }
  });

  it("a retryable failure goes back to the queue with backoff; the worker sleeps until runAfter and finishes it", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    // The good answer agrees with the learner's evidence (the quality stage's evidence rules): the
    // offline analysis of the job's own snapshot, as of its capture.
    const snapshot = await getDb().snapshot.findUniqueOrThrow({ where: { id: (await jobRow(job.id)).snapshotId! } });
    const good = JSON.stringify(
      analyse("weak_point_analysis", snapshot.content as SnapshotContent, {}, snapshot.createdAt, job.locale as Locale),
    );
    const fake = await startFakeOpenAI([{ status: 429, error: { message: "slow down" } }, { content: good }]);
    Object.assign(process.env, {
      INNGEST_WORKER_PROVIDER: "deepseek",
      DEEPSEEK_API_KEY: "sk-test",
      DEEPSEEK_BASE_URL: fake.url,
    });
    let slept: Date | null = null;
    try {
      const t = new InngestTestEngine({
        function: executeJobFn,
        events: created(job),
        transformCtx: (ctx) => {
          // No Inngest server to wake us: move the clock to the job's runAfter instead.
          (ctx.step as unknown as { sleepUntil: unknown }).sleepUntil = async (_id: string, until: Date) => {
            slept = new Date(until);
            advanceClock(Math.max(0, until.getTime() - now().getTime()) + 1000);
          };
          return ctx;
        },
      });
      const { result } = await t.execute();
      expect(result).toMatchObject({ outcome: "succeeded", attempts: 2 });
      expect(slept).not.toBeNull();
      const row = await jobRow(job.id);
      expect(row.retryCount).toBe(1);
      expect(row.attemptNo).toBe(2);
      expect(row.events.find((e) => e.toStatus === "pending" && e.fromStatus !== null)?.errorCode).toBe(
        "MODEL_RATE_LIMIT",
      );
    } finally {
      await fake.close();
    }
  });

  it("a non-retryable failure ends the job failed, reported once", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const fake = await startFakeOpenAI([{ status: 401, error: { message: "bad key" } }]);
    Object.assign(process.env, {
      INNGEST_WORKER_PROVIDER: "deepseek",
      DEEPSEEK_API_KEY: "sk-wrong",
      DEEPSEEK_BASE_URL: fake.url,
    });
    try {
      const { result } = await new InngestTestEngine({ function: executeJobFn, events: created(job) }).execute();
      expect(result).toMatchObject({ outcome: "failed", errorCode: "INVALID_CREDENTIAL" });
      expect((await jobRow(job.id)).status).toBe("failed");
    } finally {
      await fake.close();
    }
  });

  it("an unexpected (unclassified) error fails the step, so Inngest retries it; the job stays held until then", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const buggy = { name: "buggy", infer: async () => Promise.reject(new TypeError("provider bug")) };
    const inline: Step = (_id, fn) => fn();
    await expect(executeJob(job.id, inline, async () => {}, buggy)).rejects.toThrow("provider bug");
    const row = await jobRow(job.id);
    expect(row.status).toBe("running"); // held: Inngest retries the step, or the lease ends and the sweep requeues it
    expect(row.errorCode).toBeNull();
  });

  it("refuses an event for a job that does not exist with NonRetriableError", async () => {
    const { error } = await new InngestTestEngine({
      function: executeJobFn,
      events: [
        { name: "ai/job.created", data: { jobId: "job_missing", userId: "u", jobType: "quiz_generation" } },
      ] as never,
    }).execute();
    expect((error as Error).name).toBe("NonRetriableError");
  });

  it("leaves job types that are not routed to it to the external Runtimes", async () => {
    process.env.INNGEST_WORKER_JOB_TYPES = "quiz_generation";
    const learner = await createLearner();
    const job = await createTestJob(learner, "flashcard_generation");
    const { result } = await new InngestTestEngine({ function: executeJobFn, events: created(job) }).execute();
    expect(result).toMatchObject({ outcome: "skipped" });
    expect((await jobRow(job.id)).status).toBe("pending");
  });
});
