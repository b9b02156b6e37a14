import Ajv2020 from "ajv/dist/2020";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { cancelJob } from "@/server/jobs/cancel";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { ALL_TYPES } from "../helpers/runtime-api";

let app: AppServer;
let key: string;
let doc: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

beforeAll(async () => {
  app = await startAppServer({ databaseUrl: process.env.DATABASE_URL! });
  key = await runtimeKey();
  const res = await fetch(`${app.url}/internal/runtime/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
  ajv.addSchema({ ...doc, $id: "https://doc.test/openapi.json" });
});
afterAll(async () => {
  await app?.stop();
});

const escape = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const PATHS = {
  poll: "/internal/runtime/jobs/poll",
  lock: "/internal/runtime/jobs/{jobId}/lock",
  heartbeat: "/internal/runtime/jobs/{jobId}/heartbeat",
  result: "/internal/runtime/jobs/{jobId}/result",
  results: "/internal/runtime/jobs/results",
  fail: "/internal/runtime/jobs/{jobId}/fail",
} as const;
type Op = keyof typeof PATHS;

function validator(pointer: string) {
  return (
    ajv.getSchema(`https://doc.test/openapi.json#${pointer}`) ??
    ajv.compile({ $ref: `https://doc.test/openapi.json#${pointer}` })
  );
}
const requestSchema = (op: Op) => `/paths/${escape(PATHS[op])}/post/requestBody/content/application~1json/schema`;

/** Calls the live route and checks the answer against what the document says for that status. */
async function call(
  op: Op,
  jobId: string | null,
  body: unknown,
  opts: { key?: string | null; contentType?: string; raw?: string } = {},
) {
  const url = `${app.url}${PATHS[op].replace("{jobId}", jobId ?? "")}`;
  const headers: Record<string, string> = { "content-type": opts.contentType ?? "application/json" };
  if (opts.key !== null) headers.authorization = `Bearer ${opts.key ?? key}`;
  const res = await fetch(url, { method: "POST", headers, body: opts.raw ?? JSON.stringify(body) });
  const json = await res.json();
  const documented = doc.paths[PATHS[op]].post.responses[String(res.status)];
  expect(
    documented,
    `${op} answered ${res.status}, which the document does not list: ${JSON.stringify(json)}`,
  ).toBeDefined();
  const validate = validator(
    `/paths/${escape(PATHS[op])}/post/responses/${res.status}/content/application~1json/schema`,
  );
  expect(
    validate(json),
    `${op} ${res.status} body does not match the document: ${JSON.stringify(validate.errors)} ${JSON.stringify(json)}`,
  ).toBe(true);
  return { status: res.status, body: json };
}

describe("[SYSTEM] the OpenAPI document at /internal/runtime/openapi.json", () => {
  it("is OpenAPI 3.1 with the six operations, bearer security, and schemas that compile", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(Object.values(PATHS).sort());
    expect(doc.components.securitySchemes.runtimeKey).toEqual({ type: "http", scheme: "bearer" });
    // Each schema compiles in the document (they refer to each other through #/components/schemas/…).
    for (const name of Object.keys(doc.components.schemas))
      expect(() => validator(`/components/schemas/${escape(name)}`), name).not.toThrow();
  });

  it("describes what the live routes answer: success and error bodies for every operation", async () => {
    const learner = await createLearner();
    const kpIds = learner.knowledgePoints.map((k) => k.id);
    const a = uid("rt");
    const b = uid("rt");
    const jobs = await Promise.all([1, 2, 3, 4, 5].map(() => createTestJob(learner, "weak_point_analysis")));

    expect((await call("poll", null, { runtimeInstanceId: a, capabilities: ALL_TYPES, limit: 50 })).status).toBe(200);
    expect((await call("poll", null, { runtimeInstanceId: a })).body.error.code).toBe("INVALID_REQUEST");
    expect((await call("poll", null, { runtimeInstanceId: a, capabilities: ALL_TYPES }, { key: null })).status).toBe(
      401,
    );
    expect((await call("poll", null, {}, { raw: "{nope" })).body.error.code).toBe("MALFORMED_JSON");
    expect((await call("poll", null, {}, { contentType: "text/plain", raw: "x" })).status).toBe(415);

    const locked = await call("lock", jobs[0]!.id, { runtimeInstanceId: a });
    expect(locked.status).toBe(200);
    expect((await call("lock", jobs[0]!.id, { runtimeInstanceId: b })).body.error.code).toBe("JOB_ALREADY_LOCKED");
    expect((await call("lock", "no_such_job", { runtimeInstanceId: a })).status).toBe(404);
    await cancelJob(jobs[3]!.id, { type: "admin", id: "admin" });
    expect((await call("lock", jobs[3]!.id, { runtimeInstanceId: a })).body.error.code).toBe("JOB_NOT_LOCKABLE");

    expect(
      (
        await call("heartbeat", jobs[0]!.id, {
          runtimeInstanceId: a,
          attemptNo: 1,
          stage: "model_inference",
          progress: 30,
        })
      ).status,
    ).toBe(200);
    expect((await call("heartbeat", jobs[0]!.id, { runtimeInstanceId: b, attemptNo: 1 })).body.error.code).toBe(
      "LOCK_LOST",
    );

    const output = validOutput("weak_point_analysis", kpIds);
    expect((await call("result", jobs[0]!.id, { runtimeInstanceId: a, attemptNo: 1, output })).body).toMatchObject({
      idempotent: false,
    });
    expect((await call("result", jobs[0]!.id, { runtimeInstanceId: a, attemptNo: 1, output })).body).toMatchObject({
      idempotent: true,
    });
    const other = { weakPoints: [] };
    expect(
      (await call("result", jobs[0]!.id, { runtimeInstanceId: a, attemptNo: 1, output: other })).body.error.code,
    ).toBe("RESULT_ALREADY_EXISTS");

    // Several results at once: one stored, one repeated (idempotent), one for no job; each with its own status.
    expect((await call("lock", jobs[4]!.id, { runtimeInstanceId: a })).status).toBe(200);
    const together = await call("results", null, {
      runtimeInstanceId: a,
      results: [
        { jobId: jobs[4]!.id, jobType: "weak_point_analysis", attemptNo: 1, output },
        { jobId: jobs[0]!.id, jobType: "weak_point_analysis", attemptNo: 1, output },
        { jobId: "no_such_job", jobType: "weak_point_analysis", attemptNo: 1, output },
      ],
    });
    expect(together.body.results.map((r: { httpStatus: number }) => r.httpStatus)).toEqual([200, 200, 404]);
    expect(together.body.results[1].body.idempotent).toBe(true);
    expect((await call("results", null, { runtimeInstanceId: a, results: [] })).body.error.code).toBe(
      "INVALID_REQUEST",
    );

    const claimed = await call("poll", null, {
      runtimeInstanceId: a,
      capabilities: ["weak_point_analysis"],
      limit: 50,
      claim: true,
    });
    const mine = claimed.body.jobs.filter(
      (j: { job?: { id: string } }) => j.job && [jobs[1]!.id, jobs[2]!.id].includes(j.job.id),
    );
    expect(mine).toHaveLength(2);
    expect(
      (
        await call("result", jobs[1]!.id, {
          runtimeInstanceId: a,
          attemptNo: 1,
          output: { weakPoints: [{ knowledgePointId: "nope" }] },
        })
      ).status,
    ).toBe(422);
    expect(
      (await call("fail", jobs[2]!.id, { runtimeInstanceId: a, attemptNo: 1, errorCode: "NOT_A_CODE" })).body.error
        .code,
    ).toBe("UNKNOWN_ERROR_CODE");
    expect(
      (await call("fail", jobs[2]!.id, { runtimeInstanceId: b, attemptNo: 1, errorCode: "MODEL_TIMEOUT" })).body.error
        .code,
    ).toBe("LOCK_LOST");
    expect(
      (
        await call("fail", jobs[2]!.id, {
          runtimeInstanceId: a,
          attemptNo: 1,
          errorCode: "MODEL_TIMEOUT",
          errorMessage: "slow",
        })
      ).body,
    ).toMatchObject({
      status: "pending",
      retryCount: 1,
    });
  });

  it("answers other methods 405 and unknown endpoints 404 as JSON errors, through the production server's short door", async () => {
    const get = await fetch(`${app.url}/internal/runtime/jobs/poll`, { headers: { authorization: `Bearer ${key}` } });
    expect(get.status).toBe(405);
    expect((await get.json()).error.code).toBe("METHOD_NOT_ALLOWED");
    const unknown = await fetch(`${app.url}/internal/runtime/jobs/x/explode`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: "{}",
    });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("NOT_FOUND");
  });

  it("marks as required exactly what the routes refuse without, and accepts what it describes", async () => {
    const rt = uid("rt");
    const examples: Record<Op, Record<string, unknown>> = {
      poll: { runtimeInstanceId: rt, capabilities: ["quiz_generation"], limit: 1 },
      lock: { runtimeInstanceId: rt },
      heartbeat: { runtimeInstanceId: rt, attemptNo: 1, stage: "prompt_builder", progress: 5, message: "hi" },
      result: {
        runtimeInstanceId: rt,
        attemptNo: 1,
        output: { weakPoints: [] },
        outputSchemaVersion: "v1",
        degraded: true,
      },
      results: {
        runtimeInstanceId: rt,
        results: [
          {
            jobId: "no_such_job",
            jobType: "weak_point_analysis",
            attemptNo: 1,
            output: { weakPoints: [] },
            latencyMs: 5,
          },
        ],
      },
      fail: { runtimeInstanceId: rt, attemptNo: 1, errorCode: "MODEL_TIMEOUT", errorMessage: "x" },
    };
    for (const op of Object.keys(PATHS) as Op[]) {
      const validate = validator(requestSchema(op));
      const example = examples[op];
      const inPath = PATHS[op].includes("{jobId}");
      const jobId = inPath ? "no_such_job" : null;
      expect(validate(example), `${op} example: ${JSON.stringify(validate.errors)}`).toBe(true);
      // Valid by the document → past body validation (404 for a job that does not exist; 200 for poll,
      // and for results, whose one item is the 404).
      const valid = await call(op, jobId, { ...example, someFutureField: 1 });
      expect(valid.status).toBe(inPath ? 404 : 200);
      if (op === "results") expect(valid.body.results[0].httpStatus).toBe(404);
      const { required } = resolve(requestSchema(op));
      expect(required.length).toBeGreaterThan(0);
      for (const field of required) {
        const { [field]: _dropped, ...rest } = example;
        expect(validate(rest), `${op} without ${field} should be invalid by the document`).toBe(false);
        const res = await call(op, jobId, rest);
        expect(res.status, `${op} without ${field}`).toBe(400);
        expect(res.body.error.code).toBe("INVALID_REQUEST");
      }
    }
  });
});

/** Follows a JSON pointer (and one $ref) inside the document. */
function resolve(pointer: string): { required: string[] } {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let node: any = pointer
    .split("/")
    .slice(1)
    .reduce((n, part) => n[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  if (node.$ref) node = resolve(String(node.$ref).slice(1));
  return node;
}
