import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { createLearner, createTestJob } from "../helpers/factories";
import { cancelJob } from "@/server/jobs/cancel";
import { getDb } from "@/server/db";
import { claimDueDeliveries, deliverDue, listDeliveries, recordDelivery } from "@/server/notifications/deliveries";
import { verifySignature } from "@/server/notifications/webhook";
import { callerAs } from "../helpers/auth";
import { advanceClock, now, resetClock } from "@/server/clock";

/**
 * Zero-setup webhook delivery claimed in the database: whatever the number of app instances
 * (simulated by concurrent claimers with their own ids), one delivery per finished job; retries
 * with backoff; a log admins can read.
 */
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let answers: number[] = [];
beforeEach(async () => {
  answers = [];
  receiver = await startWebhookReceiver((n) => answers[n - 1] ?? 200);
  process.env.JOB_WEBHOOK_URL = receiver.url;
  process.env.JOB_WEBHOOK_SECRET = "whsec_deliveries";
  process.env.JOB_WEBHOOK_BACKOFF_MS = "0";
});
afterEach(async () => {
  for (const k of ["JOB_WEBHOOK_URL", "JOB_WEBHOOK_SECRET", "JOB_WEBHOOK_BACKOFF_MS", "JOB_WEBHOOK_MAX_ATTEMPTS"])
    delete process.env[k];
  await receiver.close();
});

async function finishedJob() {
  const job = await createTestJob(await createLearner());
  await cancelJob(job.id, { type: "admin", id: "a" });
  return job;
}
const row = (jobId: string) => getDb().webhookDelivery.findUniqueOrThrow({ where: { id: `${jobId}:cancelled` } });

describe("zero-setup webhook deliveries", () => {
  it("4 instances seeing the same 20 finished jobs send exactly one signed delivery each", async () => {
    const jobs = await Promise.all(Array.from({ length: 20 }, finishedJob));
    // Every instance records every delivery and then sends what it can claim, all at once.
    await Promise.all(
      ["i1", "i2", "i3", "i4"].map(async (claimer) => {
        for (const j of jobs) await recordDelivery(j.id, "cancelled");
        await Promise.all([deliverDue({ claimer }), deliverDue({ claimer })]);
      }),
    );
    await Promise.all(["i1", "i2"].map((claimer) => deliverDue({ claimer })));
    const ids = jobs.map((j) => j.id);
    const mine = receiver.received.filter((r) => ids.some((id) => r.body.includes(id)));
    expect(mine).toHaveLength(20);
    expect(new Set(mine.map((r) => r.headers["x-ajr-delivery"])).size).toBe(20);
    for (const r of mine)
      expect(verifySignature("whsec_deliveries", r.body, String(r.headers["x-ajr-signature"]))).toBe(true);
    for (const j of jobs)
      expect(await row(j.id)).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 200 });
  });

  it("retries 5xx answers with backoff until delivered, and records every attempt's outcome", async () => {
    answers = [503, 502, 200];
    const job = await finishedJob();
    await recordDelivery(job.id, "cancelled");
    expect(await deliverDue()).toMatchObject({ retrying: 1 });
    expect(await row(job.id)).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 503 });
    expect(await deliverDue()).toMatchObject({ retrying: 1 });
    expect(await deliverDue()).toMatchObject({ delivered: 1 });
    expect(await row(job.id)).toMatchObject({ status: "delivered", attempts: 3, lastStatusCode: 200, lastError: null });
    expect(await deliverDue()).toMatchObject({ delivered: 0, retrying: 0 });
  });

  it("signs a retry again when it is sent: a fresh timestamp inside the receiver's 300-second window", async () => {
    answers = [503, 200];
    const job = await finishedJob();
    await recordDelivery(job.id, "cancelled");
    try {
      expect(await deliverDue()).toMatchObject({ retrying: 1 });
      advanceClock(3_600_000);
      expect(await deliverDue()).toMatchObject({ delivered: 1 });
      const [first, retry] = receiver.received;
      const t = (h: typeof first) => Number(/^t=(\d+),/.exec(String(h!.headers["x-ajr-signature"]))![1]);
      expect(t(retry) - t(first)).toBeGreaterThanOrEqual(3600);
      expect(retry!.body).toBe(first!.body);
      const at = now().getTime();
      const valid = (h: typeof first) =>
        verifySignature("whsec_deliveries", h!.body, String(h!.headers["x-ajr-signature"]), 300, at);
      expect([valid(first), valid(retry)]).toEqual([false, true]);
    } finally {
      resetClock();
    }
  });

  it("waits out the backoff before retrying", async () => {
    process.env.JOB_WEBHOOK_BACKOFF_MS = "60000";
    answers = [500];
    const job = await finishedJob();
    await recordDelivery(job.id, "cancelled");
    await deliverDue();
    expect(await deliverDue()).toMatchObject({ delivered: 0, retrying: 0 });
    expect((await row(job.id)).nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it("gives up on a 4xx at once, and on 5xx after JOB_WEBHOOK_MAX_ATTEMPTS", async () => {
    answers = [400];
    const rejected = await finishedJob();
    await recordDelivery(rejected.id, "cancelled");
    expect(await deliverDue()).toMatchObject({ failed: 1 });
    expect(await row(rejected.id)).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 400 });

    process.env.JOB_WEBHOOK_MAX_ATTEMPTS = "2";
    answers = [400, 500, 500, 500];
    const down = await finishedJob();
    await recordDelivery(down.id, "cancelled");
    await deliverDue();
    await deliverDue();
    expect(await row(down.id)).toMatchObject({ status: "failed", attempts: 2, lastStatusCode: 500 });
    expect(receiver.received).toHaveLength(3);
  });

  it("a claim left by a crashed instance passes, and another instance delivers", async () => {
    const job = await finishedJob();
    await recordDelivery(job.id, "cancelled");
    expect(await claimDueDeliveries(50, "crashed")).toEqual(
      expect.arrayContaining([expect.objectContaining({ jobId: job.id })]),
    );
    expect(await deliverDue({ claimer: "alive" })).toMatchObject({ delivered: 0 });
    await getDb().webhookDelivery.update({
      where: { id: `${job.id}:cancelled` },
      data: { claimedUntil: new Date(Date.now() - 1000) },
    });
    expect(await deliverDue({ claimer: "alive" })).toMatchObject({ delivered: 1 });
    expect(await row(job.id)).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("records nothing without a configured webhook or for an unfinished status", async () => {
    const job = await finishedJob();
    await recordDelivery(job.id, "running");
    delete process.env.JOB_WEBHOOK_URL;
    await recordDelivery(job.id, "cancelled");
    expect(await getDb().webhookDelivery.count({ where: { jobId: job.id } })).toBe(0);
  });

  it("the log is visible to admins only", async () => {
    const job = await finishedJob();
    await recordDelivery(job.id, "cancelled");
    await deliverDue();
    const admin = await createLearner({ role: "admin" });
    const log = await callerAs(admin.user).admin.webhooks.list({ jobId: job.id });
    expect(log).toMatchObject({
      total: 1,
      items: [{ jobId: job.id, status: "delivered", attempts: 1, lastStatusCode: 200 }],
    });
    const learner = await createLearner();
    await expect(callerAs(learner.user).admin.webhooks.list({})).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(
      (await listDeliveries({ status: "delivered", limit: 200 })).items.every((d) => d.status === "delivered"),
    ).toBe(true);
  });
});
