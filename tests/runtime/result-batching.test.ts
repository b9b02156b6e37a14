import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, createApiClient } from "@/runtime/api-client";
import { dispatch } from "@/server/runtime-api/dispatch";
import { runtimePath } from "@/server/runtime-api/node-http";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { eventually } from "../helpers/eventually";

/**
 * The reference Runtime's client sends results that end while a result request is in flight
 * together in the next one (POST /results), each caller still getting its own answer or error.
 * The API here is the real dispatch() behind a real HTTP server that can hold a request open.
 */
let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

/** The real API, recording each request's path and body; while `hold` is set, requests wait for its release. */
async function gatedApi() {
  const seen: { path: string; body: Record<string, unknown> }[] = [];
  let gate: Promise<void> | null = null;
  let open = () => {};
  server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const path = runtimePath(req.url ?? "/") ?? [];
    seen.push({ path: path.join("/"), body: JSON.parse(body) });
    if (gate) await gate;
    const answer = await dispatch({
      method: "POST",
      path,
      authorization: req.headers.authorization ?? null,
      contentType: req.headers["content-type"] ?? null,
      body,
    });
    res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`,
    seen,
    hold: () => (gate = new Promise((r) => (open = r))),
    release: () => {
      gate = null;
      open();
    },
  };
}

async function heldJobs(learner: Learner, key: string, instanceId: string, n: number) {
  const rt = runtime(key, instanceId);
  const jobs = [];
  for (let i = 0; i < n; i++) {
    const job = await createTestJob(learner, "weak_point_analysis");
    expect((await rt.lock(job.id)).status).toBe(200);
    jobs.push(job.id);
  }
  return jobs;
}

describe("results sent together by the reference Runtime's client", () => {
  it("a result goes alone at once; those that end while it is in flight go together next, each with its own answer or error", async () => {
    const api = await gatedApi();
    const learner = await createLearner();
    const key = await runtimeKey();
    const instanceId = uid("rt");
    const [first, a, b, bad] = await heldJobs(learner, key, instanceId, 4);
    const client = createApiClient({ apiUrl: api.url, apiKey: key, instanceId, requestTimeoutMs: 30_000 });
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );

    api.hold();
    const firstAnswer = client.result(first!, { jobType: "weak_point_analysis", attemptNo: 1, output });
    await eventually("the first result request in flight", async () => api.seen.length === 1);
    const later = [
      client.result(a!, { jobType: "weak_point_analysis", attemptNo: 1, output }),
      client.result(b!, { jobType: "weak_point_analysis", attemptNo: 1, output }),
      client
        .result(bad!, { jobType: "weak_point_analysis", attemptNo: 1, output: { weakPoints: "not a list" } })
        .catch((e: unknown) => e),
    ];
    // Nothing else is sent while the first request is in flight.
    expect(api.seen).toHaveLength(1);
    api.release();

    expect(await firstAnswer).toMatchObject({ status: "succeeded", idempotent: false });
    const [ra, rb, refused] = await Promise.all(later);
    expect(ra).toMatchObject({ status: "succeeded", idempotent: false });
    expect(rb).toMatchObject({ status: "succeeded", idempotent: false });
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 422, code: "INVALID_SCHEMA" });

    expect(api.seen.map((s) => [s.path, ((s.body.results ?? []) as { jobId: string }[]).map((r) => r.jobId)])).toEqual([
      ["results", [first]],
      ["results", [a, b, bad]],
    ]);
    expect((await jobRow(a!)).result!.id).toBe((ra as { resultId: string }).resultId);
    expect((await jobRow(bad!)).status).toBe("failed");
  });

  it("results that end in the same turn go at once in one request (short jobs of one claim), not the first alone", async () => {
    const api = await gatedApi();
    const learner = await createLearner();
    const key = await runtimeKey();
    const instanceId = uid("rt");
    const jobs = await heldJobs(learner, key, instanceId, 3);
    const client = createApiClient({ apiUrl: api.url, apiKey: key, instanceId, requestTimeoutMs: 30_000 });
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    // Three results in one synchronous stretch, as the jobs of one claim that end together.
    const answers = await Promise.all(
      jobs.map((id) => client.result(id, { jobType: "weak_point_analysis", attemptNo: 1, output })),
    );
    expect(answers.map((a) => a.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(api.seen.map((s) => [s.path, ((s.body.results ?? []) as { jobId: string }[]).map((r) => r.jobId)])).toEqual([
      ["results", jobs],
    ]);
  });

  it("a request that gets no answer fails every result in it, as unreachable (each is repeated by its sender)", async () => {
    const api = await gatedApi();
    const learner = await createLearner();
    const key = await runtimeKey();
    const instanceId = uid("rt");
    const [j] = await heldJobs(learner, key, instanceId, 1);
    const client = createApiClient({ apiUrl: api.url, apiKey: key, instanceId, requestTimeoutMs: 100 });
    api.hold();
    const answer = client
      .result(j!, { jobType: "weak_point_analysis", attemptNo: 1, output: { weakPoints: [] } })
      .catch((e: unknown) => e);
    expect(await answer).toMatchObject({ status: null, code: "UNREACHABLE" });
    expect(api.seen.map((s) => s.path)).toEqual(["results"]);
  });

  it("a result too large to go with others goes to its own endpoint", async () => {
    const api = await gatedApi();
    const learner = await createLearner();
    const key = await runtimeKey();
    const instanceId = uid("rt");
    const [j] = await heldJobs(learner, key, instanceId, 1);
    const output = validOutput(
      "weak_point_analysis",
      learner.knowledgePoints.map((k) => k.id),
    );
    const size = JSON.stringify({ jobId: j, attemptNo: 1, output }).length;
    // A body limit the result fits alone (as /{jobId}/result) but not inside a /results wrapper.
    const client = createApiClient({
      apiUrl: api.url,
      apiKey: key,
      instanceId,
      requestTimeoutMs: 30_000,
      maxResultBytes: size + 10,
    });
    expect(await client.result(j!, { jobType: "weak_point_analysis", attemptNo: 1, output })).toMatchObject({
      status: "succeeded",
    });
    expect(api.seen.map((s) => s.path)).toEqual([`${j}/result`]);
  });
});
