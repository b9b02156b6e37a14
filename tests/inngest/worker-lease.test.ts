import { afterEach, describe, expect, it } from "vitest";
import { InngestTestEngine } from "@inngest/test";
import { getDb } from "@/server/db";
import { weeklyAnalyses } from "@/server/inngest/functions/weekly-analyses";
import { isoWeek } from "@/server/jobs/weekly-analyses";
import { sweepExpiredLeases } from "@/server/jobs/sweep";
import { executeJob, type Step } from "@/server/worker/execute";
import { createLearner, jobRow } from "../helpers/factories";
import { faultScene } from "../runtime/faults";

const ENV = {
  INNGEST_WORKER_JOB_TYPES: "*",
  INNGEST_WORKER_PROVIDER: "deepseek",
  INNGEST_WORKER_ID: "inngest-worker",
  DEEPSEEK_API_KEY: "sk-platform",
  DEEPSEEK_TIMEOUT_MS: "10000",
};
afterEach(() => {
  for (const k of [...Object.keys(ENV), "DEEPSEEK_BASE_URL", "JOB_LEASE_SECONDS"]) delete process.env[k];
});

describe("the in-app worker keeps its lease through a slow step", () => {
  it("a model call three times as long as the lease keeps the job: one attempt, never swept", async () => {
    Object.assign(process.env, ENV, { JOB_LEASE_SECONDS: "1" });
    const s = await faultScene((good) => [{ content: good, delayMs: 3000 }], { others: 0 });
    process.env.DEEPSEEK_BASE_URL = s.fake.url;
    // A sweeper as eager as can be: any passed lease is taken away at once.
    let swept = 0;
    const sweeper = setInterval(() => void sweepExpiredLeases().then((r) => (swept += r.expired)), 100);
    const inline: Step = (_id, fn) => fn();
    try {
      const outcome = await executeJob(s.job.id, inline, async () => {});
      expect(outcome).toMatchObject({ outcome: "succeeded", attempts: 1 });
    } finally {
      clearInterval(sweeper);
      await s.fake.close();
    }
    const row = await jobRow(s.job.id);
    expect(row).toMatchObject({ status: "succeeded", attemptNo: 1, retryCount: 0 });
    expect(row.events.some((e) => e.toStatus === "expired")).toBe(false);
    expect(swept).toBe(0);
    expect(s.calls()).toHaveLength(1);
  });
});

describe("weekly-analyses", () => {
  it("every later step uses the week computed in the first step, not the week at the time it runs", async () => {
    const learner = await createLearner();
    const first = new Date("2026-11-22T23:59:59.000Z"); // a Sunday: a replay minutes later is next week
    const week = isoWeek(first);
    expect(week).not.toBe(isoWeek(new Date()));
    const t = new InngestTestEngine({
      function: weeklyAnalyses,
      steps: [
        { id: "find-active-learners", handler: () => ({ week, at: first.toISOString(), learners: [learner.user.id] }) },
      ],
    });
    const { result } = await t.execute();
    expect(result).toMatchObject({ week, learners: 1, created: 2 });
    const jobs = await getDb().aiRuntimeJob.findMany({ where: { userId: learner.user.id } });
    expect(jobs.filter((j) => j.idempotencyKey?.startsWith("weekly-review:")).map((j) => j.idempotencyKey)).toEqual([
      `weekly-review:${week}`,
      `weekly-review:${week}`,
    ]);
  });
});
