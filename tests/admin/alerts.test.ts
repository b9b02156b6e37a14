import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as metricsRoute } from "@/app/api/metrics/route";
import { getAlerts } from "@/server/observability/alerts";
import { advanceClock, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { setConsent } from "@/server/jobs/consent";
import { callerAs } from "../helpers/auth";
import { createLearner, createTestJob, runtimeKey, uid, type Learner } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { runtime } from "../helpers/runtime-api";

/** Each console alert: raised when its condition holds, quiet when it does not, in the banner's procedure and in /api/metrics. */
let admin: Learner;
const TOKEN = "alerts-metrics-token";

beforeAll(async () => {
  admin = await createLearner({ role: "admin" });
  process.env.METRICS_TOKEN = TOKEN;
});

// Each test starts from an empty queue and no Runtime: its own jobs are cancelled, instances forgotten.
afterEach(async () => {
  resetClock();
  for (const k of [
    "ALERT_RUNTIME_SILENT_SECONDS",
    "ALERT_OLDEST_PENDING_SECONDS",
    "ALERT_FAILURE_RATE",
    "ALERT_FAILURE_MIN_JOBS",
  ])
    delete process.env[k];
  const users = await getDb().user.findMany({ where: { role: "learner" }, select: { id: true } });
  for (const { id } of users) await setConsent(id, false, { type: "learner", id });
  await getDb().runtimeInstance.deleteMany({});
});

async function gauge(name: string, labels: Record<string, string> = {}) {
  const res = await metricsRoute(
    new Request("http://localhost/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }),
  );
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = (await res.text())
    .split("\n")
    .find((l) => l.startsWith(`${name}${want.length ? "{" : " "}`) && want.every((w) => l.includes(w)));
  return line ? Number(line.split(" ").pop()) : null;
}
const codes = async () => (await callerAs(admin.user).admin.monitor.alerts()).alerts.map((a) => a.code);

describe("alert: a job type with pending jobs and no live Runtime claiming it", () => {
  it("is raised per type, cleared when a Runtime with that capability calls in, and raised again when it goes silent", async () => {
    const learner = await createLearner();
    await createTestJob(learner, "quiz_generation", { params: { count: 2 } });
    await createTestJob(learner, "flashcard_generation", { params: { count: 2 } });
    expect(await codes()).toContain("NO_RUNTIME_FOR_TYPE");
    expect((await getAlerts()).pendingWithoutRuntime).toEqual([
      { jobType: "flashcard_generation", pending: 1 },
      { jobType: "quiz_generation", pending: 1 },
    ]);

    // A live Runtime that only makes flashcards: quizzes still have nobody.
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.poll({ capabilities: ["flashcard_generation"], limit: 1 });
    const partly = await getAlerts();
    expect(partly.pendingWithoutRuntime).toEqual([{ jobType: "quiz_generation", pending: 1 }]);
    expect(partly.alerts[0]!.message).toContain("quiz_generation (1 pending)");
    expect(await gauge("ajr_pending_without_runtime", { job_type: "quiz_generation" })).toBe(1);
    expect(await gauge("ajr_pending_without_runtime", { job_type: "flashcard_generation" })).toBe(0);
    expect(await gauge("ajr_alert", { alert: "no_runtime_for_type" })).toBe(1);

    const rt2 = runtime(await runtimeKey(), uid("rt"));
    await rt2.poll({ capabilities: ["quiz_generation"], limit: 1 });
    expect(await codes()).not.toContain("NO_RUNTIME_FOR_TYPE");
    expect(await gauge("ajr_alert", { alert: "no_runtime_for_type" })).toBe(0);

    // Both go quiet past the threshold.
    process.env.ALERT_RUNTIME_SILENT_SECONDS = "60";
    advanceClock(61_000);
    expect((await getAlerts()).pendingWithoutRuntime.map((p) => p.jobType)).toEqual([
      "flashcard_generation",
      "quiz_generation",
    ]);
  });

  it("stays quiet with no pending work, even with no Runtime at all", async () => {
    // (Review digests failing is about the SMTP server, not the queue: another file's digests may fail meanwhile.)
    expect((await codes()).filter((c) => c !== "DIGEST_FAILING")).toEqual([]);
    expect(await gauge("ajr_alert", { alert: "no_runtime_for_type" })).toBe(0);
  });
});

describe("alert: the oldest pending job is older than the configured age", () => {
  it("is raised past ALERT_OLDEST_PENDING_SECONDS and not before", async () => {
    process.env.ALERT_OLDEST_PENDING_SECONDS = "300";
    const learner = await createLearner();
    await createTestJob(learner, "weak_point_analysis");
    advanceClock(290_000);
    expect(await codes()).not.toContain("OLDEST_PENDING");
    expect(await gauge("ajr_alert", { alert: "oldest_pending" })).toBe(0);
    advanceClock(20_000);
    const state = await callerAs(admin.user).admin.monitor.alerts();
    expect(state.alerts.find((a) => a.code === "OLDEST_PENDING")?.message).toMatch(/waited 5 min \(threshold 5 min\)/);
    expect(await gauge("ajr_alert", { alert: "oldest_pending" })).toBe(1);
  });
});

describe("alert: failure rate over the configured share in the last 15 minutes", () => {
  async function finish(learner: Learner, outcomes: ("ok" | "fail")[]) {
    const rt = runtime(await runtimeKey(), uid("rt"));
    for (const o of outcomes) {
      const job = await createTestJob(learner, "weak_point_analysis");
      expect((await rt.lock(job.id)).status).toBe(200);
      if (o === "ok")
        expect(
          (
            await rt.result(
              job.id,
              1,
              validOutput(
                "weak_point_analysis",
                learner.knowledgePoints.map((k) => k.id),
              ),
            )
          ).status,
        ).toBe(200);
      else expect((await rt.fail(job.id, 1, "INVALID_CREDENTIAL")).body.status).toBe("failed");
    }
  }

  it("needs enough finished jobs, then compares the failed share with the threshold, and forgets after 15 minutes", async () => {
    process.env.ALERT_FAILURE_RATE = "0.5";
    process.env.ALERT_FAILURE_MIN_JOBS = "4";
    const learner = await createLearner();
    await finish(learner, ["fail", "fail", "fail"]);
    expect(await codes()).not.toContain("FAILURE_RATE"); // 3 of 3, but fewer than 4 finished
    await finish(learner, ["ok"]);
    const at75 = await getAlerts();
    expect(at75.failureRate).toBeCloseTo(0.75);
    expect(at75.alerts.map((a) => a.code)).toContain("FAILURE_RATE");
    expect(await gauge("ajr_alert", { alert: "failure_rate" })).toBe(1);
    expect(await gauge("ajr_failure_rate_15m")).toBeCloseTo(0.75);

    await finish(learner, ["ok", "ok"]); // 3 of 6 = 50%: not over the share
    expect(await codes()).not.toContain("FAILURE_RATE");

    await finish(learner, ["fail"]); // 4 of 7
    expect(await codes()).toContain("FAILURE_RATE");
    advanceClock(16 * 60_000);
    expect((await getAlerts()).finishedInWindow).toBe(0);
    expect(await codes()).not.toContain("FAILURE_RATE");
  });
});

describe("the alerts procedure", () => {
  it("is admin-only", async () => {
    const learner = await createLearner();
    await expect(callerAs(learner.user).admin.monitor.alerts()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
