import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { createServiceKey, SCOPES } from "@/server/platform/service-keys";
import { jobRow, runtimeKey, uid } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { byId, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver";
import { spawnRuntime, type RuntimeProcess } from "./runtime-process";

let receiver: OtlpReceiver;
let app: AppServer;
let runtime: RuntimeProcess | null = null;
let service: string;
let runtimeApiKey: string;
/** Both processes export small batches quickly, so the test's wait for the spans is short. */
const OTEL = (url: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: "200" });

beforeAll(async () => {
  service = (await createServiceKey(uid("svc"), SCOPES, "test")).key;
  runtimeApiKey = await runtimeKey();
  receiver = await startOtlpReceiver();
  app = await startAppServer({ databaseUrl: process.env.DATABASE_URL!, env: OTEL(receiver.url) });
});
afterAll(async () => {
  await runtime?.kill("SIGKILL");
  await app?.stop();
  await receiver?.close();
});

/** The chain of span names from `span` up to the root of its trace (as far as the spans received reach). */
function ancestors(spans: ReceivedSpan[], span: ReceivedSpan) {
  const chain: ReceivedSpan[] = [];
  for (let s = byId(spans, span.parentSpanId); s; s = byId(spans, s.parentSpanId)) chain.push(s);
  return chain;
}

describe("[SYSTEM] OpenTelemetry: one job's spans from the app and a Runtime process form one trace", () => {
  it("platform call (with the platform's traceparent) → job.create → job.claim → the Runtime's attempt, stages, model call → job.succeed", async () => {
    const ext = uid("ext");
    const call = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${app.url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${service}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    expect((await call("PUT", `/learners/${ext}`, { name: "Tracy", aiConsent: true })).status).toBeLessThan(300);
    // The learning platform's own trace: the job must join it.
    const platformTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const platformSpan = "00f067aa0ba902b7";
    const started = await call(
      "POST",
      `/learners/${ext}/jobs`,
      { jobType: "learning_state_analysis", target: { type: "user" } },
      { traceparent: `00-${platformTrace}-${platformSpan}-01` },
    );
    expect(started.status).toBe(201);
    const jobId = ((await started.json()) as { job: { id: string } }).job.id;
    expect((await jobRow(jobId)).traceparent).toMatch(new RegExp(`^00-${platformTrace}-[0-9a-f]{16}-01$`));

    runtime = spawnRuntime({ apiUrl: app.url, apiKey: runtimeApiKey, env: OTEL(receiver.url) });
    await eventually("job succeeded", async () => (await jobRow(jobId)).status === "succeeded");
    // Each process exports on its batch timer: wait for the last spans of both to arrive.
    const spans = await eventually("the app's and the Runtime's spans of the job", async () => {
      const got = receiver.trace(platformTrace);
      const names = new Set(got.map((s) => s.name));
      return names.has("job.succeed") && names.has("runtime.job") && names.has("pipeline.format_adapter") ? got : null;
    });
    expect(receiver.refused).toEqual([]);

    const one = (name: string) => {
      const found = spans.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const create = one("job.create");
    expect(create.service).toBe("ai-job-runtime");
    expect(create.attributes).toMatchObject({ "job.id": jobId, "job.actor.type": "platform" });
    // Next's request span continues the platform's traceparent; job.create is inside it.
    const chain = ancestors(spans, create);
    expect(chain.length).toBeGreaterThan(0);
    expect(chain.at(-1)!.parentSpanId).toBe(platformSpan);
    expect(chain.at(-1)!.name).toMatch(/POST/);

    const claim = one("job.claim");
    expect(claim.parentSpanId).toBe(create.spanId);
    expect(claim.attributes).toMatchObject({ "job.id": jobId, "job.attempt": 1, "job.actor.id": runtime.instanceId });
    for (const name of ["job.start", "job.succeed"]) expect(one(name).parentSpanId, name).toBe(create.spanId);

    const attempt = one("runtime.job");
    expect(attempt.service).toBe("reference-runtime");
    expect(attempt.resource["service.instance.id"]).toBe(runtime.instanceId);
    expect(attempt.parentSpanId).toBe(claim.spanId);
    for (const name of [
      "pipeline.prompt_builder",
      "pipeline.model_inference",
      "pipeline.quality_check",
      "pipeline.format_adapter",
    ])
      expect(one(name).parentSpanId, name).toBe(attempt.spanId);
    const model = one("model.call");
    expect(model.parentSpanId).toBe(one("pipeline.model_inference").spanId);
    expect(model.attributes["gen_ai.provider.name"]).toBe("local");

    // The Runtime's log lines about the job carry the trace id and the span they were written in.
    const lines = runtime.events.filter((e) => e.jobId === jobId);
    expect(lines.map((e) => e.event)).toContain("job.succeeded");
    for (const line of lines) expect(line.traceId, line.event).toBe(platformTrace);
  });

  it("a malformed or hostile traceparent header is ignored: the job is made and starts a trace of its own", async () => {
    const ext = uid("ext");
    const call = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${app.url}/api/v1${path}`, {
        method: path.endsWith("/jobs") ? "POST" : "PUT",
        headers: { authorization: `Bearer ${service}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    expect((await call(`/learners/${ext}`, { name: "Hostile", aiConsent: true })).status).toBeLessThan(300);
    for (const [i, traceparent] of [
      "__proto__",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      `00-${"a".repeat(32)}-${"b".repeat(16)}-01-${"x".repeat(8000)}`,
    ].entries()) {
      const res = await call(
        `/learners/${ext}/jobs`,
        { jobType: "learning_state_analysis", target: { type: "user" }, idempotencyKey: `h-${i}` },
        { traceparent },
      );
      expect(res.status, traceparent.slice(0, 60)).toBe(201);
      const id = ((await res.json()) as { job: { id: string } }).job.id;
      const stored = (await jobRow(id)).traceparent!;
      expect(stored).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(stored).not.toContain("00000000000000000000000000000000");
      expect(stored).not.toContain("a".repeat(32));
    }
  });
});
