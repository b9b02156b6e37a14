import { context, trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { configProblems } from "@/server/config";
import { claimJobs } from "@/server/jobs/lease";
import { loadConfig as loadRuntimeConfig } from "@/runtime/config";
import { failJob } from "@/server/jobs/results";
import { createWeeklyAnalyses } from "@/server/jobs/weekly-analyses";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import type { QualityChecker } from "@/server/pipeline/quality-checks";
import { localProvider } from "@/server/providers/local";
import { contextFrom, formatTraceparent, parseTraceparent, tracer, tracingOn } from "@/server/observability/tracing";
import { getDb } from "@/server/db";
import { APP_URL, setPassword, signedInCookie } from "../helpers/auth";
import { platform, serviceKey } from "../helpers/platform-api";
import { trpcHttp } from "../helpers/trpc-route";
import { startTracing, tracesUrl, tracesWanted, type Tracing } from "@/server/observability/tracing-sdk";
import { executeJob } from "@/server/worker/execute";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { byId, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver";
import { eventually, startApiServer } from "../runtime/api-server";
import { startTestRuntime } from "../runtime/harness";
import { AS_OF, smallSnapshot } from "../pipeline/fixtures";

const ALL = ["learning_state_analysis", "quiz_generation"] as const;
const claim = (id = uid("rt")) => claimJobs({ runtimeInstanceId: id, capabilities: [...ALL], limit: 50 });

let receiver: OtlpReceiver | null = null;
let tracing: Tracing | null = null;
afterAll(async () => {
  await tracing?.shutdown();
  await receiver?.close();
});

/** The spans exported so far (the batch processor sends on flush). */
async function exported() {
  await tracing!.flush();
  expect(receiver!.refused).toEqual([]);
  return receiver!.spans;
}

const one = (spans: ReceivedSpan[], name: string, jobId: string) => {
  const found = spans.filter((s) => s.name === name && s.attributes["job.id"] === jobId);
  expect(found, `${name} of ${jobId}`).toHaveLength(1);
  return found[0]!;
};

describe("OpenTelemetry settings and the W3C traceparent", () => {
  it("traces only when an OTLP endpoint is set and nothing turns them off", () => {
    expect(tracesWanted({})).toBe(false);
    expect(tracesWanted({ OTEL_SERVICE_NAME: "x" })).toBe(false);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe(true);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" })).toBe(true);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" })).toBe(false);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })).toBe("http://c:4318/v1/traces");
    expect(
      tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/x" }),
    ).toBe("http://t/x");
  });

  it("a bad OTEL_* setting stops the app and the reference Runtime at start, by name", () => {
    const problems = configProblems({
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
      OTEL_TRACES_SAMPLER: "sometimes",
      OTEL_TRACES_SAMPLER_ARG: "2",
      OTEL_SDK_DISABLED: "yes",
    });
    for (const name of [
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_TRACES_SAMPLER:",
      "OTEL_TRACES_SAMPLER_ARG",
      "OTEL_SDK_DISABLED",
    ])
      expect(
        problems.some((p) => p.startsWith(name)),
        name,
      ).toBe(true);
    expect(configProblems({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "TRUE" })).toEqual(
      [],
    );
    expect(() => loadRuntimeConfig({ RUNTIME_API_KEY: "k", OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });

  it("reads back what it writes and refuses what is not a traceparent", () => {
    const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    expect(formatTraceparent(parseTraceparent(tp)!)).toBe(tp);
    for (const bad of [
      "",
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
      "__proto__",
    ])
      expect(parseTraceparent(bad), bad).toBeNull();
  });
});

describe("with OTEL_* unset", () => {
  it("registers nothing: no trace context is stored, none is leased, spans are no-ops", async () => {
    expect(startTracing({ env: {}, serviceName: "t" })).toBeNull();
    expect(tracingOn()).toBe(false);
    expect(tracer().startSpan("x").isRecording()).toBe(false);
    const learner = await createLearner();
    const job = await createTestJob(learner);
    expect((await jobRow(job.id)).traceparent).toBeNull();
    const [lease] = await claim();
    expect(lease!.job.id).toBe(job.id);
    expect(lease!.job).not.toHaveProperty("traceparent");
  });
});

describe("with an OTLP endpoint: one trace per job", () => {
  it("starts exporting to the receiver", async () => {
    receiver = await startOtlpReceiver();
    tracing = startTracing({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, serviceName: "ajr-test" });
    expect(tracing).not.toBeNull();
    expect(tracingOn()).toBe(true);
  });

  it("request → job.create → job.claim → the Runtime's attempt, stages and model call; job.start and job.succeed under job.create", async () => {
    const key = await runtimeKey();
    const api = await startApiServer();
    const learner = await createLearner();
    // The door's request span (Next's, for tRPC and the platform API): the job's creation is its child.
    const request = tracer().startSpan("POST /api/v1/learners/{id}/jobs");
    const job = await context.with(trace.setSpan(context.active(), request), () =>
      createTestJob(learner, "quiz_generation"),
    );
    request.end();
    const stored = parseTraceparent((await jobRow(job.id)).traceparent)!;
    expect(stored.traceId).toBe(request.spanContext().traceId);

    const rt = startTestRuntime(api.url, key);
    try {
      await eventually("job succeeded", async () => (await jobRow(job.id)).status === "succeeded");
    } finally {
      await rt.runtime.shutdown(0);
      await api.close();
    }
    // The Runtime's spans end with its attempt; the app's job.succeed with the result's statement.
    await eventually("the job's spans exported", async () => {
      await exported();
      return receiver!.trace(stored.traceId).some((s) => s.name === "runtime.job");
    });
    const spans = receiver!.trace(stored.traceId);
    const create = one(spans, "job.create", job.id);
    expect(create.parentSpanId).toBe(request.spanContext().spanId);
    expect(create.spanId).toBe(stored.spanId);
    expect(create.attributes).toMatchObject({ "job.type": "quiz_generation", "job.actor.type": "learner" });
    expect(create.service).toBe("ajr-test");

    const claimed = one(spans, "job.claim", job.id);
    expect(claimed.parentSpanId).toBe(create.spanId);
    expect(claimed.attributes).toMatchObject({ "job.attempt": 1, "job.status": "locked", "job.actor.type": "runtime" });
    expect(one(spans, "job.start", job.id).parentSpanId).toBe(create.spanId);
    const succeed = one(spans, "job.succeed", job.id);
    expect(succeed.parentSpanId).toBe(create.spanId);
    expect(succeed.attributes).toMatchObject({ "job.status": "succeeded", "job.attempt": 1 });

    const attempt = one(spans, "runtime.job", job.id);
    expect(attempt.parentSpanId).toBe(claimed.spanId);
    expect(attempt.attributes["runtime.instance_id"]).toBe(rt.config.instanceId);
    const stages = spans.filter((s) => s.name.startsWith("pipeline."));
    expect(stages.map((s) => s.name).sort()).toEqual(
      [
        "pipeline.format_adapter",
        "pipeline.model_inference",
        "pipeline.prompt_builder",
        "pipeline.quality_check",
      ].sort(),
    );
    for (const s of stages) expect(s.parentSpanId, s.name).toBe(attempt.spanId);
    const model = spans.find((s) => s.name === "model.call")!;
    expect(byId(spans, model.parentSpanId)?.name).toBe("pipeline.model_inference");
    expect(model.attributes).toMatchObject({ "gen_ai.provider.name": "local", "model.cost.currency": "USD" });
    expect(typeof model.attributes["gen_ai.usage.input_tokens"]).toBe("number");

    // The Runtime's log lines of the job carry its trace id, and are events on its span.
    const started = rt.events.find((e) => e.event === "job.started" && e.jobId === job.id)!;
    expect(started.traceId).toBe(stored.traceId);
    expect(attempt.events.map((e) => e.name)).toContain("job.succeeded");
  });

  it("the quality loop: each stage span says its loop, the quality check whether it passed; tokens and cost on model.call", async () => {
    let verdicts = 0;
    const qualityChecker: QualityChecker = () =>
      ++verdicts === 1 ? { ok: false, findings: ["too thin", "vague"] } : { ok: true };
    const local = localProvider();
    const parent = tracer().startSpan("loop-test");
    await context.with(trace.setSpan(context.active(), parent), () =>
      runPipeline(
        { jobType: "weak_point_analysis", params: {}, snapshot: smallSnapshot(), asOf: AS_OF },
        {
          qualityChecker,
          provider: {
            name: "counting",
            infer: async (req) => ({
              ...(await local.infer(req)),
              usage: { promptTokens: 1000, completionTokens: 500 },
            }),
          },
        },
      ),
    );
    parent.end();
    const spans = (await exported()).filter((s) => s.traceId === parent.spanContext().traceId);
    const checks = spans.filter((s) => s.name === "pipeline.quality_check");
    expect(checks.map((s) => [s.attributes["pipeline.loop"], s.attributes["quality.accepted"]]).sort()).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(checks.find((s) => s.attributes["pipeline.loop"] === 1)!.attributes["quality.findings"]).toBe(2);
    const calls = spans.filter((s) => s.name === "model.call");
    expect(calls).toHaveLength(2);
    // MODEL_PRICE_* defaults: 0.27 and 1.1 per million tokens.
    expect(calls[0]!.attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 1000,
      "gen_ai.usage.output_tokens": 500,
      "model.cost.estimate": (1000 * 0.27 + 500 * 1.1) / 1_000_000,
    });
    expect(spans.filter((s) => s.name === "pipeline.prompt_builder")).toHaveLength(2);
  });

  it("a failure that ends the job is an error span with its code; a retryable one is not", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "learning_state_analysis", { maxRetryCount: 1 });
    const runtimeInstanceId = uid("rt");
    for (const [attemptNo, status] of [
      [1, "pending"],
      [2, "failed"],
    ] as const) {
      const leases = await claimJobs({ runtimeInstanceId, capabilities: [...ALL], limit: 50 });
      expect(leases.map((l) => l.job.id)).toContain(job.id);
      const answer = await failJob(job.id, { runtimeInstanceId, attemptNo, errorCode: "MODEL_TIMEOUT" });
      expect(answer.status).toBe(status);
      // The retry waits its backoff: make it visible now.
      if (status === "pending") await jobRowVisibleNow(job.id);
    }
    const traceId = parseTraceparent((await jobRow(job.id)).traceparent)!.traceId;
    const fails = (await exported()).filter((s) => s.traceId === traceId && s.name === "job.fail");
    expect(fails.map((s) => [s.attributes["job.attempt"], s.attributes["job.status"], s.statusCode]).sort()).toEqual([
      [1, "pending", 0],
      [2, "failed", 2],
    ]);
    for (const f of fails) expect(f.attributes["job.error_code"]).toBe("MODEL_TIMEOUT");
  });

  it("the in-app worker: its lock span is the parent of the stages it runs", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "learning_state_analysis");
    const out = await executeJob(
      job.id,
      (_id, fn) => fn(),
      async () => {},
      localProvider(),
    );
    expect(out.outcome).toBe("succeeded");
    const traceId = parseTraceparent((await jobRow(job.id)).traceparent)!.traceId;
    const spans = (await exported()).filter((s) => s.traceId === traceId);
    const lock = one(spans, "job.lock", job.id);
    expect(byId(spans, lock.parentSpanId)?.name).toBe("job.create");
    const stages = spans.filter((s) => s.name.startsWith("pipeline."));
    expect(stages.length).toBeGreaterThanOrEqual(4);
    for (const s of stages) expect(s.parentSpanId).toBe(lock.spanId);
  });

  it("a traceparent chooses a job's trace only at the platform API, never through a learner's session", async () => {
    // Next continues an incoming traceparent as the request's span: the context each door runs in.
    const attacker = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";
    const asSent = <T>(fn: () => Promise<T>) => context.with(contextFrom(attacker), fn);
    const learner = await createLearner();
    const password = `pw-${uid()}`;
    await setPassword(learner.user.id, password);
    const cookie = await signedInCookie(learner.user.email, password);
    const created = await asSent(() =>
      trpcHttp(
        "mutation",
        "jobs.create",
        { jobType: "weak_point_analysis", target: { type: "user", id: learner.user.id } },
        { cookie, origin: APP_URL },
      ),
    );
    expect(created.status, created.text).toBe(200);
    const own = parseTraceparent((await jobRow(created.body.result.data.job.id)).traceparent)!;
    expect(own.traceId).not.toBe("0af7651916cd43dd8448eb211c80319c");
    expect(own.traceFlags & 1).toBe(1);

    const api = platform(await serviceKey());
    const ext = uid("ext");
    await api.putLearner(ext, { name: "T", aiConsent: true });
    await api.putMaterial(ext, "m", {
      title: "M",
      text: "Cells are the unit of life.",
      knowledgePoints: [{ externalId: "k", title: "Cell" }],
    });
    const started = await asSent(() =>
      api.startJob(ext, { jobType: "weak_point_analysis", target: { type: "material", externalId: "m" } }),
    );
    expect(started.status).toBe(201);
    const platformJob = await getDb().aiRuntimeJob.findFirstOrThrow({ where: { user: { externalId: ext } } });
    expect(parseTraceparent(platformJob.traceparent)!.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
  });

  it("the weekly analyses: each job is a trace of its own, linked to the review's span", async () => {
    const learner = await createLearner();
    const out = await createWeeklyAnalyses(learner.user.id);
    expect(out.created).toBe(2);
    const spans = await exported();
    const review = spans.filter((s) => s.name === "weekly_analyses").at(-1)!;
    const creates = spans.filter(
      (s) => s.name === "job.create" && s.links.some((l) => l.spanId === review.spanId) && s.parentSpanId === "",
    );
    expect(creates).toHaveLength(2);
    expect(new Set(creates.map((s) => s.traceId)).size).toBe(2);
    expect(creates.every((s) => s.traceId !== review.traceId)).toBe(true);
  });
});

/** A retry waits its backoff (runAfter); the test moves it to now instead of waiting. */
async function jobRowVisibleNow(id: string) {
  const { getDb } = await import("@/server/db");
  await getDb().aiRuntimeJob.update({ where: { id }, data: { runAfter: new Date(Date.now() - 1000) } });
}
