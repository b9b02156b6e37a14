import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { advanceClock, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { JOB_TYPES } from "@/server/job-types";
import { cancelJob } from "@/server/jobs/cancel";
import { checkOutput } from "@/server/jobs/quality";
import { sweepJob } from "@/server/jobs/sweep";
import { encryptSecret } from "@/server/security/secret-box";
import { PROMPT_VERSION } from "@/server/pipeline/prompts";
import { analyse } from "@/server/providers/local";
import { createLearner, createTestJob, jobRow, runtimeKey } from "../helpers/factories";
import { closedPort, startFakeOpenAI } from "../providers/fake-openai-server";
import { eventually, startApiServer } from "./api-server";
import { startTestRuntime } from "./harness";

let key: string;
let api: Awaited<ReturnType<typeof startApiServer>>;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  key = await runtimeKey();
  api = await startApiServer();
  cleanups.push(() => api.close());
  // Retryable failures come back at once instead of after the first backoff's 5 s.
  process.env.JOB_BACKOFF_BASE_MS = "1";
  process.env.JOB_BACKOFF_CAP_MS = "1";
});
afterEach(async () => {
  resetClock();
  while (cleanups.length > 1) await cleanups.pop()!();
});
afterAll(async () => {
  await cleanups.pop()?.();
  delete process.env.JOB_BACKOFF_BASE_MS;
  delete process.env.JOB_BACKOFF_CAP_MS;
});

function runtime(env: Record<string, string> = {}, url = api.url) {
  const rt = startTestRuntime(url, key, env);
  cleanups.push(() => rt.runtime.shutdown(0));
  return rt;
}
const status = (id: string, want: string) => async () => {
  const row = await jobRow(id);
  return row.status === want ? row : null;
};

describe("reference Runtime against the real Runtime routes over HTTP", () => {
  it("runs a job of every type to a stored, valid result, heartbeating at each stage", async () => {
    const learner = await createLearner();
    const jobs = await Promise.all(JOB_TYPES.map((t) => createTestJob(learner, t)));
    // auto without a DeepSeek key: the local analyzer.
    const rt = runtime({ RUNTIME_PROVIDER: "auto" });
    for (const job of jobs) {
      const row = await eventually(`${job.jobType} succeeded`, status(job.id, "succeeded"));
      expect(row.result, job.jobType).toMatchObject({
        modelProvider: "local",
        modelName: "local-analyzer-1",
        promptVersion: PROMPT_VERSION,
        degraded: false,
        attemptNo: 1,
      });
      const snapshot = await getDb().snapshot.findUniqueOrThrow({ where: { id: row.snapshotId! } });
      const content = snapshot.content as Parameters<typeof analyse>[1];
      // The stored result is exactly the local analysis of the job's snapshot at its capture time.
      expect(row.result!.output).toEqual(
        analyse(job.jobType, content, row.params as Record<string, unknown>, snapshot.createdAt),
      );
      expect(
        checkOutput(job.jobType, row.result!.outputSchemaVersion, row.result!.output, {
          knowledgePointIds: new Set(content.knowledgePoints.map((k) => k.id)),
          params: row.params,
          snapshot: content,
        }),
      ).toMatchObject({ ok: true });
      expect(row.events.map((e) => e.toStatus)).toEqual(["pending", "locked", "running", "succeeded"]);
      expect(row.progress).toBe(100);
      expect(
        await getDb().jobUsage.findUniqueOrThrow({ where: { jobId_attemptNo: { jobId: job.id, attemptNo: 1 } } }),
      ).toMatchObject({
        provider: "local",
        model: "local-analyzer-1",
        promptTokens: 0,
        completionTokens: 0,
        durationMs: expect.any(Number),
      });
      expect(
        await getDb().jobUsage.count({
          where: { jobId: job.id, attemptNo: 1, provider: "local", outcome: "succeeded" },
        }),
      ).toBe(1);
      const stages = rt.events.filter((e) => e.event === "job.stage" && e.jobId === job.id).map((e) => e.stage);
      expect(stages).toEqual(["prompt_builder", "model_inference", "quality_check", "format_adapter"]);
      // The Runtime logs after the API's answer, which follows the commit the test saw.
      await eventually("success logged", async () => rt.has("job.succeeded", job.id));
    }
  });

  it("acknowledges a cancel request by stopping the pipeline and reporting CANCELLED", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "quiz_generation");
    const rt = runtime({ RUNTIME_LOCAL_DELAY_MS: "600000" });
    await eventually("job in model_inference", async () => (await jobRow(job.id)).stage === "model_inference");
    await cancelJob(job.id, { type: "admin", id: "admin" });
    const row = await eventually("job cancelled", status(job.id, "cancelled"));
    expect(row.errorCode).toBe("CANCELLED");
    expect(row.result).toBeNull();
    expect(row.events.at(-1)).toMatchObject({
      fromStatus: "running",
      toStatus: "cancelled",
      actorType: "runtime",
      actorId: rt.config.instanceId,
    });
    const logged = await eventually("cancel logged", async () => rt.has("job.cancelled", job.id));
    expect(logged).toMatchObject({ code: "CANCELLED", status: "cancelled" });
    // A cancelled attempt still reports what it spent.
    expect(await getDb().jobUsage.findMany({ where: { jobId: job.id } })).toMatchObject([
      { attemptNo: 1, outcome: "CANCELLED", provider: "local" },
    ]);
  });

  it("on shutdown claims nothing more and hands unfinished jobs back as RUNTIME_SHUTDOWN (retryable)", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const rt = runtime({ RUNTIME_LOCAL_DELAY_MS: "600000" });
    await eventually("job running", status(job.id, "running"));
    await rt.runtime.shutdown(0);
    const row = await jobRow(job.id);
    expect(row).toMatchObject({ status: "pending", retryCount: 1, errorCode: "RUNTIME_SHUTDOWN", lockedBy: null });
    expect(rt.has("runtime.stopped")?.handedBack).toBeGreaterThanOrEqual(1);
    const later = await createTestJob(learner, "weak_point_analysis");
    // Leave no pending jobs behind for other test files' queue assertions.
    cleanups.push(
      () => cancelJob(job.id, { type: "admin", id: "cleanup" }),
      () => cancelJob(later.id, { type: "admin", id: "cleanup" }),
    );
    const polls = rt.events.filter((e) => e.event === "job.started").length;
    expect((await jobRow(later.id)).status).toBe("pending");
    expect(rt.events.filter((e) => e.event === "job.started").length).toBe(polls);
  });

  it("lets a running job finish within the shutdown grace period", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "flashcard_generation");
    const rt = runtime({ RUNTIME_LOCAL_DELAY_MS: "400" });
    await eventually("job in model_inference", async () => (await jobRow(job.id)).stage === "model_inference");
    await rt.runtime.shutdown(60_000);
    expect((await jobRow(job.id)).status).toBe("succeeded");
    expect(rt.has("runtime.stopped")?.handedBack).toBe(0);
  });

  it("backs off exponentially while the API is unreachable, then resumes and finishes the job", async () => {
    const port = await closedPort();
    const learner = await createLearner();
    const job = await createTestJob(learner, "next_action_planning");
    const rt = runtime({}, `http://127.0.0.1:${port}`);
    await eventually(
      "five failed polls",
      async () => rt.events.filter((e) => e.event === "api.poll_failed").length >= 5,
    );
    const failed = rt.events.filter((e) => e.event === "api.poll_failed");
    failed.slice(0, 5).forEach((e, i) => {
      const d = Math.min(160, 20 * 2 ** i); // base 20 ms doubling, capped at 160 ms, equal jitter
      expect(e.failures).toBe(i + 1);
      expect(e.retryInMs).toBeGreaterThanOrEqual(d / 2);
      expect(e.retryInMs).toBeLessThanOrEqual(d);
    });
    const back = await startApiServer(port);
    cleanups.push(() => back.close());
    await eventually("job succeeded after the API came back", status(job.id, "succeeded"));
    expect(rt.has("api.reachable")).toBeTruthy();
  });

  it("keeps a finished result through an API outage and delivers it when the API is back", async () => {
    const server = await startApiServer();
    cleanups.push(() => server.close());
    const learner = await createLearner();
    const job = await createTestJob(learner, "learning_state_analysis");
    const rt = runtime({ RUNTIME_LOCAL_DELAY_MS: "1500" }, server.url);
    await eventually("job in model_inference", async () => (await jobRow(job.id)).stage === "model_inference");
    await server.close();
    await eventually("result delivery retried", async () => rt.events.some((e) => e.event === "api.retry"));
    const back = await startApiServer(server.port);
    cleanups.push(() => back.close());
    const row = await eventually("job succeeded", status(job.id, "succeeded"));
    expect(row.attemptNo).toBe(1);
    expect(row.retryCount).toBe(0);
  });

  it("drops a job whose lease was lost instead of reporting it, and the sweep hands it back", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const rt = runtime({ RUNTIME_LOCAL_DELAY_MS: "600000" });
    await eventually("job running", status(job.id, "running"));
    advanceClock(10 * 60_000); // the API's clock: the lease has passed
    await eventually("lease lost noticed", async () => rt.has("job.abandoned", job.id));
    // Stop it first: once swept back to pending, a running Runtime would rightly claim the job again.
    await rt.runtime.shutdown(0);
    // Only this job: a global sweep with the clock moved would requeue other files' jobs too.
    const swept = await sweepJob(job.id);
    expect(swept.map((r) => r.status)).toEqual(["pending"]);
    const row = await jobRow(job.id);
    expect(row.events.filter((e) => e.actorType === "runtime" && e.fromStatus === "running")).toHaveLength(0);
    expect(row.events.at(-1)).toMatchObject({ toStatus: "pending", actorType: "system", errorCode: "JOB_TIMEOUT" });
    await cancelJob(job.id, { type: "admin", id: "cleanup" });
  });

  it("heartbeats often enough for a lease much shorter than its heartbeat interval", async () => {
    process.env.JOB_LEASE_SECONDS = "2";
    cleanups.push(async () => delete process.env.JOB_LEASE_SECONDS);
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    // 15 s heartbeats and 4 s of inference: only heartbeats paced by the 2 s lease keep the job.
    const rt = runtime({ RUNTIME_HEARTBEAT_MS: "15000", RUNTIME_LOCAL_DELAY_MS: "4000" });
    const row = await eventually("job succeeded", status(job.id, "succeeded"));
    expect(row).toMatchObject({ attemptNo: 1, retryCount: 0 });
    expect(rt.has("job.result_refused", job.id)).toBeUndefined();
  });

  it("keeps running when an answer does not match the contract", async () => {
    const bogus = await startFakeOpenAI([{ content: "{}" }]); // any HTTP server that is not the Runtime API
    cleanups.push(() => bogus.close());
    const rt = runtime({}, bogus.url.replace(/\/v1$/, ""));
    await eventually(
      "three failed polls",
      async () => rt.events.filter((e) => e.event === "api.poll_failed").length >= 3,
    );
    expect(String(rt.has("api.poll_failed")?.message)).toMatch(/does not match the contract|outside the contract/);
    expect(rt.runtime.runningJobs).toEqual([]);
  });
});

describe("reference Runtime with DeepSeek (fake server)", () => {
  async function learnerWithKey(apiKey: string) {
    const learner = await createLearner();
    await getDb().userCredential.create({
      data: { userId: learner.user.id, ciphertext: encryptSecret(apiKey), last4: apiKey.slice(-4) },
    });
    return learner;
  }

  it("uses the learner's own key from the lease; a 429 is retried, then the job succeeds", async () => {
    const learner = await learnerWithKey("sk-learner-1234");
    const job = await createTestJob(learner, "weak_point_analysis", { apiKeyMode: "user_deepseek_key" });
    const row0 = await jobRow(job.id);
    const snapshot = await getDb().snapshot.findUniqueOrThrow({ where: { id: row0.snapshotId! } });
    const good = JSON.stringify(analyse("weak_point_analysis", snapshot.content as never, {}, snapshot.createdAt));
    const fake = await startFakeOpenAI([{ status: 429, error: { message: "slow down" } }, { content: good }]);
    cleanups.push(() => fake.close());
    runtime({ RUNTIME_PROVIDER: "auto", DEEPSEEK_BASE_URL: fake.url });
    const row = await eventually("job succeeded", status(job.id, "succeeded"));
    expect(fake.requests.map((r) => r.authorization)).toEqual(["Bearer sk-learner-1234", "Bearer sk-learner-1234"]);
    expect(row).toMatchObject({ retryCount: 1, attemptNo: 2 });
    expect(row.events.find((e) => e.errorCode === "MODEL_RATE_LIMIT")).toMatchObject({
      fromStatus: "running",
      toStatus: "pending",
    });
    expect(row.result).toMatchObject({ modelProvider: "deepseek", modelName: "deepseek-chat" });
  });

  it("switches platform jobs to DeepSeek when the Runtime has a platform key; a 401 fails the job for good", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "learning_state_analysis");
    const fake = await startFakeOpenAI([{ status: 401, error: { message: "Authentication Fails" } }]);
    cleanups.push(() => fake.close());
    runtime({ RUNTIME_PROVIDER: "auto", DEEPSEEK_API_KEY: "sk-platform", DEEPSEEK_BASE_URL: fake.url });
    const row = await eventually("job failed", status(job.id, "failed"));
    expect(fake.requests[0]?.authorization).toBe("Bearer sk-platform");
    expect(row).toMatchObject({ errorCode: "INVALID_CREDENTIAL", retryCount: 0 });
  });
});
