import { afterEach, describe, expect, it } from "vitest";
import { InngestTestEngine } from "@inngest/test";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { advanceClock, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { setConsent } from "@/server/jobs/consent";
import { isoWeek } from "@/server/jobs/weekly-analyses";
import { verifySignature } from "@/server/notifications/webhook";
import { sweepLeases } from "@/server/inngest/functions/sweep-leases";
import { weeklyAnalyses } from "@/server/inngest/functions/weekly-analyses";
import { notifyJobFinished } from "@/server/inngest/functions/notify-job-finished";
import { cancelJob } from "@/server/jobs/cancel";

afterEach(() => {
  resetClock();
  delete process.env.JOB_WEBHOOK_URL;
  delete process.env.JOB_WEBHOOK_SECRET;
});

describe("sweep-leases", () => {
  it("runs the sweep as its step and brings an abandoned job back to pending", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    await runtime(await runtimeKey(), uid("rt")).lock(job.id);
    advanceClock(2 * 60_000);
    const t = new InngestTestEngine({ function: sweepLeases });
    const { result, ctx } = await t.execute();
    expect(ctx.step.run).toHaveBeenCalledWith("sweep-expired-leases", expect.any(Function));
    expect((result as { expired: number }).expired).toBeGreaterThanOrEqual(1);
    const row = await jobRow(job.id);
    expect(row.status).toBe("pending");
    expect(row.events.at(-2)).toMatchObject({ toStatus: "expired", actorType: "system" });
  });
});

describe("weekly-analyses", () => {
  it("creates one analysis and one plan per active learner with consent; a second run creates nothing", async () => {
    const active = await createLearner();
    await getDb().studySession.create({ data: { userId: active.user.id, startedAt: new Date(), minutes: 10 } });
    const noConsent = await createLearner();
    await getDb().studySession.create({ data: { userId: noConsent.user.id, startedAt: new Date(), minutes: 10 } });
    await setConsent(noConsent.user.id, false, { type: "learner", id: noConsent.user.id });
    const inactive = await createLearner(); // its history is from 2026-11-01..03, weeks ago

    const t = new InngestTestEngine({ function: weeklyAnalyses });
    const first = await t.execute();
    expect(first.ctx.step.run).toHaveBeenCalledWith("find-active-learners", expect.any(Function));
    const week = isoWeek(new Date());
    const jobsOf = (userId: string) =>
      getDb().aiRuntimeJob.findMany({ where: { userId, idempotencyKey: `weekly-review:${week}` } });
    const created = await jobsOf(active.user.id);
    expect(created.map((j) => j.jobType).sort()).toEqual(["learning_state_analysis", "next_action_planning"]);
    expect(await jobsOf(noConsent.user.id)).toHaveLength(0);
    expect(await jobsOf(inactive.user.id)).toHaveLength(0);

    const second = await new InngestTestEngine({ function: weeklyAnalyses }).execute();
    expect((second.result as { created: number }).created).toBe(0);
    expect(await jobsOf(active.user.id)).toHaveLength(2);
  });
});

describe("notify-job-finished", () => {
  async function finishedJob() {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    await cancelJob(job.id, { type: "admin", id: "a" });
    return job;
  }
  const eventFor = (jobId: string, userId: string) => [
    { name: "ai/job.finished", data: { jobId, userId, status: "cancelled", attemptNo: 0 } },
  ];

  it("delivers a signed JSON notification the receiver can verify", async () => {
    const receiver = await startWebhookReceiver();
    process.env.JOB_WEBHOOK_URL = receiver.url;
    process.env.JOB_WEBHOOK_SECRET = "whsec_test";
    const job = await finishedJob();
    const t = new InngestTestEngine({ function: notifyJobFinished, events: eventFor(job.id, job.userId) as never });
    const { result } = await t.execute();
    expect(result).toEqual({ status: 200 });
    expect(receiver.received).toHaveLength(1);
    const { headers, body } = receiver.received[0]!;
    expect(verifySignature("whsec_test", body, String(headers["x-ajr-signature"]))).toBe(true);
    expect(verifySignature("wrong-secret", body, String(headers["x-ajr-signature"]))).toBe(false);
    expect(headers["x-ajr-delivery"]).toBe(`${job.id}:cancelled`);
    expect(JSON.parse(body)).toMatchObject({ type: "ai.job.finished", job: { id: job.id, status: "cancelled" } });
    await receiver.close();
  });

  it("a 5xx answer fails the step so Inngest retries it; a 4xx is not retried", async () => {
    const job = await finishedJob();
    process.env.JOB_WEBHOOK_SECRET = "whsec_test";
    for (const [status, retriable] of [
      [503, true],
      [400, false],
    ] as const) {
      const receiver = await startWebhookReceiver(() => status);
      process.env.JOB_WEBHOOK_URL = receiver.url;
      const t = new InngestTestEngine({ function: notifyJobFinished, events: eventFor(job.id, job.userId) as never });
      const { error } = await t.execute();
      expect(String((error as Error)?.message ?? error)).toMatch(new RegExp(`webhook answered ${status}`));
      expect((error as Error & { name: string }).name === "NonRetriableError").toBe(!retriable);
      await receiver.close();
    }
  });

  it("does nothing without a configured webhook", async () => {
    const job = await finishedJob();
    const t = new InngestTestEngine({ function: notifyJobFinished, events: eventFor(job.id, job.userId) as never });
    const { result, ctx } = await t.execute();
    expect(result).toEqual({ skipped: "no webhook configured" });
    expect(ctx.step.run).not.toHaveBeenCalled();
  });
});
