import { PROTOCOL_HEADER, RUNTIME_PROTOCOL_VERSION } from "@/server/runtime-api/protocol";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { publishRuntimeDoor } from "@/server/runtime-api/door";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";

/**
 * The production server's short door (server/runtime-api/door.ts), called exactly as
 * server/production-server.mjs calls it: through the registered symbol, with Next's handler as
 * the fallback. It answers the protocol with the headers next.config.js gives /internal answers,
 * and leaves every other path to Next.
 */
type Door = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
let server: http.Server;
let url: string;
const leftToNext: string[] = [];
beforeAll(async () => {
  publishRuntimeDoor();
  const door = (globalThis as unknown as Record<symbol, Door | undefined>)[Symbol.for("ai-job-runtime.runtime-door")];
  server = http.createServer((req, res) => {
    if (door?.(req, res)) return;
    leftToNext.push(req.url ?? "");
    res.writeHead(299).end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function post(path: string, key: string, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${key}`,
      [PROTOCOL_HEADER]: RUNTIME_PROTOCOL_VERSION,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

it("serves claim → heartbeat → result with the /internal security headers", async () => {
  const learner = await createLearner();
  const job = await createTestJob(learner);
  const key = await runtimeKey();
  const rt = uid("door");
  const claimed = await post("/internal/runtime/jobs/poll", key, {
    runtimeInstanceId: rt,
    capabilities: [job.jobType],
    claim: true,
    limit: 50,
  });
  expect(claimed.status).toBe(200);
  for (const [name, value] of [
    ["content-security-policy", "default-src 'none'; frame-ancestors 'none'"],
    ["x-content-type-options", "nosniff"],
    ["x-frame-options", "DENY"],
    ["referrer-policy", "strict-origin-when-cross-origin"],
    ["content-type", "application/json"],
  ])
    expect(claimed.headers.get(name!)).toBe(value);
  const lease = (
    claimed.json.jobs as { job: { id: string; attemptNo: number; params: Record<string, unknown> } }[]
  ).find((l) => l.job.id === job.id)!.job;
  expect(
    (
      await post(`/internal/runtime/jobs/${job.id}/heartbeat`, key, {
        runtimeInstanceId: rt,
        attemptNo: lease.attemptNo,
      })
    ).status,
  ).toBe(200);
  const output = validOutput(
    "learning_state_analysis",
    learner.knowledgePoints.map((k) => k.id),
    lease.params,
  );
  const done = await post(`/internal/runtime/jobs/${job.id}/result`, key, {
    runtimeInstanceId: rt,
    attemptNo: lease.attemptNo,
    output,
  });
  expect(done).toMatchObject({ status: 200, json: { status: "succeeded" } });
});

it("answers protocol errors as JSON, never 5xx, and leaves other paths to Next", async () => {
  const key = await runtimeKey();
  expect(await post("/internal/runtime/jobs/poll", "wrong", {})).toMatchObject({
    status: 401,
    json: { error: { code: "UNAUTHORIZED" } },
  });
  expect(await post("/internal/runtime/jobs/poll", key, '{"__proto__":')).toMatchObject({
    status: 400,
    json: { error: { code: "MALFORMED_JSON" } },
  });
  expect(await post("/internal/runtime/jobs/x/explode", key, {})).toMatchObject({
    status: 404,
    json: { error: { code: "NOT_FOUND" } },
  });
  const before = leftToNext.length;
  for (const path of ["/internal/runtime/openapi.json", "/api/health", "/internal/runtime/jobs", "/"]) {
    expect((await fetch(`${url}${path}`)).status).toBe(299);
  }
  expect(leftToNext.slice(before)).toEqual([
    "/internal/runtime/openapi.json",
    "/api/health",
    "/internal/runtime/jobs",
    "/",
  ]);
});

it("refuses hostile bodies with a 4xx before any change: NUL, lone surrogates, prototype names, deep nesting, oversize", async () => {
  const learner = await createLearner();
  const job = await createTestJob(learner);
  const key = await runtimeKey();
  const rt = uid("door");
  const claimed = await post("/internal/runtime/jobs/poll", key, {
    runtimeInstanceId: rt,
    capabilities: [job.jobType],
    claim: true,
    limit: 50,
  });
  const attemptNo = (claimed.json.jobs as { job: { id: string; attemptNo: number } }[]).find(
    (l) => l.job.id === job.id,
  )!.job.attemptNo;
  const before = await jobRow(job.id);
  const path = `/internal/runtime/jobs/${job.id}`;
  const hostile: [string, unknown, number][] = [
    [`${path}/heartbeat`, { runtimeInstanceId: `${rt}\u0000`, attemptNo }, 400],
    [`${path}/heartbeat`, { runtimeInstanceId: rt, attemptNo, stage: "model_\ud800inference" }, 400],
    [`${path}/fail`, { runtimeInstanceId: rt, attemptNo, errorCode: "toString", errorMessage: "x" }, 400],
    [`${path}/fail`, { runtimeInstanceId: rt, attemptNo, errorCode: "__proto__", errorMessage: "x" }, 400],
    [
      `${path}/result`,
      `{"runtimeInstanceId":"${rt}","attemptNo":${attemptNo},"output":${"[".repeat(10_000)}${"]".repeat(10_000)}}`,
      400,
    ],
    [`${path}/result`, { runtimeInstanceId: rt, attemptNo, output: { summary: "x".repeat(2 * 1024 * 1024) } }, 413],
  ];
  for (const [where, body, status] of hostile) {
    const answer = await post(where, key, body);
    expect(answer.status, `${where} ${String(JSON.stringify(body)).slice(0, 80)}`).toBe(status);
    expect(answer.json.error.code).toMatch(/^[A-Z_]+$/);
  }
  expect(await jobRow(job.id)).toEqual(before);
});
