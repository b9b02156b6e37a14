import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../runtime/api-server";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { getDb } from "@/server/db";

/**
 * The Runtime API's Node transport (server/runtime-api/node-http.ts, what the Next route calls)
 * over a real socket: body limits enforced while streaming, unknown paths and methods answered
 * as JSON errors, and the stream left usable for the next request on a kept-alive connection.
 */
let api: Awaited<ReturnType<typeof startApiServer>>;
let key: string;
beforeAll(async () => {
  api = await startApiServer();
  key = await runtimeKey();
});
afterAll(() => api.close());

function send(
  path: string,
  opts: { method?: string; chunks?: string[]; headers?: Record<string, string>; agent?: http.Agent },
) {
  return new Promise<{ status: number; json: { error?: { code: string } } & Record<string, unknown> }>(
    (resolve, reject) => {
      const req = http.request(`${api.url}${path}`, {
        method: opts.method ?? "POST",
        agent: opts.agent,
        headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...opts.headers },
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      });
      req.on("error", reject);
      for (const c of opts.chunks ?? []) req.write(c);
      req.end();
    },
  );
}

describe("Runtime API transport", () => {
  it("refuses a chunked body that grows past the limit (no content-length), and changes nothing", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    const chunks = [
      `{"runtimeInstanceId":"${uid("rt")}","padding":"`,
      ..."x"
        .repeat(300)
        .split("")
        .map(() => "y".repeat(1024)),
      `"}`,
    ];
    const res = await send(`/internal/runtime/jobs/${job.id}/lock`, { chunks });
    expect(res.status).toBe(413);
    expect(res.json.error?.code).toBe("PAYLOAD_TOO_LARGE");
    expect((await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: job.id } })).status).toBe("pending");
  });

  it("refuses a body whose declared length is over the limit", async () => {
    const body = JSON.stringify({
      runtimeInstanceId: uid("rt"),
      capabilities: ["quiz_generation"],
      padding: "z".repeat(300 * 1024),
    });
    const res = await send("/internal/runtime/jobs/poll", {
      headers: { "content-length": String(Buffer.byteLength(body)) },
      chunks: [body],
    });
    expect(res.status).toBe(413);
    expect(res.json.error?.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers unknown endpoints 404 and other methods 405, as JSON errors", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const unknown = await send("/internal/runtime/jobs/some-job/explode", { chunks: ["{}"], agent });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error?.code).toBe("NOT_FOUND");
    const get = await send("/internal/runtime/jobs/poll", { method: "GET", agent });
    expect(get.status).toBe(405);
    expect(get.json.error?.code).toBe("METHOD_NOT_ALLOWED");
    // The same kept-alive connection still serves a good request afterwards.
    const ok = await send("/internal/runtime/jobs/poll", {
      chunks: [JSON.stringify({ runtimeInstanceId: uid("rt"), capabilities: ["quiz_generation"] })],
      agent,
    });
    expect(ok.status).toBe(200);
    expect(Array.isArray(ok.json.jobs)).toBe(true);
    agent.destroy();
  });
});
