import { describe, expect, it } from "vitest";
import * as route from "@/app/internal/runtime/jobs/[...path]/route";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { getDb } from "@/server/db";

/**
 * The App Router route handler that serves the Runtime protocol under `next dev` and plain
 * `next start`, called with real Request objects. (`npm start` answers the same paths through its
 * short door, server/runtime-api/door.ts → node-http.ts, onto the same dispatch(); tests/system
 * covers that door over real HTTP.)
 */
const BASE = "http://app.test/internal/runtime/jobs";

async function send(
  path: string[],
  body: unknown,
  opts: { key?: string; method?: "POST" | "GET"; raw?: BodyInit; headers?: Record<string, string> } = {},
) {
  const method = opts.method ?? "POST";
  const req = new Request(`${BASE}/${path.join("/")}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...opts.headers,
    },
    body: method === "GET" ? undefined : (opts.raw ?? JSON.stringify(body)),
    // @ts-expect-error Node's fetch needs this for streamed bodies
    duplex: "half",
  });
  const res = await route[method](req, { params: Promise.resolve({ path }) });
  return { status: res.status, type: res.headers.get("content-type"), json: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe("Runtime protocol route handler (App Router)", () => {
  it("runs a job through claim, heartbeat and result", async () => {
    const key = await runtimeKey();
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const rt = uid("rt");
    const polled = await send(
      ["poll"],
      { runtimeInstanceId: rt, capabilities: ["weak_point_analysis"], claim: true, limit: 50 },
      { key },
    );
    expect(polled.status).toBe(200);
    expect(polled.type).toBe("application/json");
    const mine = polled.json.jobs
      .map((l: { job: { id: string } }) => l.job)
      .find((j: { id: string }) => j.id === job.id);
    expect(mine).toBeTruthy();
    const hb = await send(
      [job.id, "heartbeat"],
      { runtimeInstanceId: rt, attemptNo: mine.attemptNo, stage: "model_inference", progress: 40 },
      { key },
    );
    expect(hb.status).toBe(200);
    expect(hb.json.cancelRequested).toBe(false);
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    const done = await send([job.id, "result"], { runtimeInstanceId: rt, attemptNo: mine.attemptNo, output }, { key });
    expect(done.status).toBe(200);
    expect(done.json.status).toBe("succeeded");
    expect((await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: job.id } })).status).toBe("succeeded");
  });

  it("answers 401 without a key, 404 on unknown paths, 405 on other methods, all as JSON errors", async () => {
    const key = await runtimeKey();
    expect((await send(["poll"], { runtimeInstanceId: "x", capabilities: ["quiz_generation"] })).json.error.code).toBe(
      "UNAUTHORIZED",
    );
    const unknown = await send(["a", "b", "c"], {}, { key });
    expect([unknown.status, unknown.json.error.code]).toEqual([404, "NOT_FOUND"]);
    const get = await send(["poll"], undefined, { key, method: "GET" });
    expect([get.status, get.json.error.code]).toEqual([405, "METHOD_NOT_ALLOWED"]);
  });

  it("refuses a streamed body past the limit with 413 and changes nothing", async () => {
    const key = await runtimeKey();
    const job = await createTestJob(await createLearner());
    const chunks = [
      `{"runtimeInstanceId":"${uid("rt")}","pad":"`,
      ...Array.from({ length: 300 }, () => "y".repeat(1024)),
      `"}`,
    ];
    const stream = new ReadableStream({
      start(c) {
        for (const s of chunks) c.enqueue(new TextEncoder().encode(s));
        c.close();
      },
    });
    const res = await send([job.id, "lock"], null, { key, raw: stream });
    expect([res.status, res.json.error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect((await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: job.id } })).status).toBe("pending");
  });

  it("answers hostile bodies with 400, never a 5xx", async () => {
    const key = await runtimeKey();
    for (const raw of [
      '{"runtimeInstanceId":"a\\u0000b","capabilities":["quiz_generation"]}',
      '{"__proto__":{"x":1}}',
      "[".repeat(10_000),
      "\ud800",
      "not json",
    ]) {
      const res = await send(["poll"], null, { key, raw });
      expect(res.status).toBe(400);
      expect(typeof res.json.error.code).toBe("string");
    }
  });
});
