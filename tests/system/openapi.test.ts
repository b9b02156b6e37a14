import Ajv2020 from "ajv/dist/2020";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { cancelJob } from "@/server/jobs/cancel";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { validOutput, validV1Output } from "../helpers/outputs";
import { getDb } from "@/server/db";
import { JOB_TYPES } from "@/server/job-types/catalogue";
import { eventually } from "../helpers/eventually";
import { countStatus, expectSucceededOnce, outcomeViolations, paramsFor } from "./jobs";
import { PREVIOUS_RUNTIMES, previousRuntimeTree } from "./previous-runtime";
import { spawnRuntime } from "./runtime-process";
import { ALL_TYPES } from "../helpers/runtime-api";
import { PROTOCOL_HEADER, RUNTIME_PROTOCOL_VERSION } from "@/server/runtime-api/protocol";

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
  opts: { key?: string | null; contentType?: string; raw?: string; protocol?: string | null } = {},
) {
  const url = `${app.url}${PATHS[op].replace("{jobId}", jobId ?? "")}`;
  const headers: Record<string, string> = { "content-type": opts.contentType ?? "application/json" };
  // The current protocol unless the test speaks another (null: no header, a Runtime of protocol 1).
  const protocol = opts.protocol === undefined ? RUNTIME_PROTOCOL_VERSION : opts.protocol;
  if (protocol !== null) headers[PROTOCOL_HEADER] = protocol;
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
  return { status: res.status, body: json, headers: res.headers };
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

describe("[SYSTEM] the previous releases' Runtimes against this release (protocol 1)", () => {
  for (const [name, commit] of Object.entries(PREVIOUS_RUNTIMES)) {
    it(`the reference Runtime of ${name} (${commit.slice(0, 7)}), built from git, runs every job type to the end: 0 lost, 0 failed`, async () => {
      const tree = previousRuntimeTree(commit);
      const learners = await Promise.all([createLearner(), createLearner()]);
      // Two jobs of each of the six types; the Runtime sends every result through POST /results (its batcher).
      const ids: string[] = [];
      for (const [i, type] of [...JOB_TYPES, ...JOB_TYPES].entries())
        ids.push((await createTestJob(learners[i % 2]!, type, { params: paramsFor(type, i) })).id);
      const rt = spawnRuntime({ apiUrl: app.url, apiKey: key, cwd: tree.dir, env: { RUNTIME_CONCURRENCY: "6" } });
      try {
        await eventually(
          `all ${ids.length} jobs succeeded`,
          async () => (await countStatus(ids, "succeeded")) === ids.length,
          90_000,
        );
      } finally {
        await rt.kill("SIGKILL");
        tree.dispose();
      }
      const { problems, jobs } = await expectSucceededOnce(ids);
      expect(problems).toEqual([]);
      expect(await outcomeViolations(process.env.DATABASE_URL!, ids)).toEqual([]);
      // Leased and stored as v1, the version it knows; no attempt of it failed or was retried.
      expect(new Set(jobs.map((j) => j.result?.outputSchemaVersion))).toEqual(new Set(["v1"]));
      expect(jobs.every((j) => j.attemptNo === 1 && j.retryCount === 0)).toBe(true);
      expect(rt.count("job.failed")).toBe(0);
      const instance = await getDb().runtimeInstance.findUniqueOrThrow({ where: { id: rt.instanceId } });
      expect(instance.protocolVersion).toBe("1.x");
    });
  }

  it("a protocol-1 client that batches: leases say v1 with Deprecation and Sunset, /results items without jobType or version are stored as v1", async () => {
    const learner = await createLearner();
    const kpIds = learner.knowledgePoints.map((k) => k.id);
    const jobs = await Promise.all(
      JOB_TYPES.map((type, i) => createTestJob(learner, type, { params: paramsFor(type, i) })),
    );
    const mine = new Set(jobs.map((j) => j.id));
    const rt = uid("rt");
    const claimed = await call(
      "poll",
      null,
      { runtimeInstanceId: rt, capabilities: ALL_TYPES, limit: 50, claim: true },
      { protocol: null },
    );
    expect(claimed.status).toBe(200);
    expect(claimed.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(new Date(claimed.headers.get("sunset")!).getTime()).toBeGreaterThan(Date.now());
    const leased = claimed.body.jobs.filter((j: { job?: { id: string } }) => j.job && mine.has(j.job.id));
    expect(leased).toHaveLength(JOB_TYPES.length);
    expect(new Set(leased.map((j: { job: { outputSchemaVersion: string } }) => j.job.outputSchemaVersion))).toEqual(
      new Set(["v1"]),
    );
    // One request, the original contract's items: no jobType, no outputSchemaVersion, v1 outputs.
    const results = leased.map(
      ({ job }: { job: { id: string; jobType: (typeof JOB_TYPES)[number]; params: Record<string, unknown> } }) => ({
        jobId: job.id,
        attemptNo: 1,
        output: validV1Output(job.jobType, kpIds, job.params),
      }),
    );
    const answer = await call("results", null, { runtimeInstanceId: rt, results }, { protocol: null });
    expect(answer.body.results.map((r: { httpStatus: number; body: unknown }) => [r.httpStatus, r.body])).toEqual(
      results.map(() => [200, expect.objectContaining({ status: "succeeded", degraded: expect.any(Boolean) })]),
    );
    const stored = await getDb().aiRuntimeResult.findMany({ where: { jobId: { in: [...mine] } } });
    expect(stored.map((r) => r.outputSchemaVersion)).toEqual(results.map(() => "v1"));
    const instance = await getDb().runtimeInstance.findUniqueOrThrow({ where: { id: rt } });
    expect(instance.protocolVersion).toBe("1.x");
  });

  it("the current protocol: leases say v2, no Deprecation; a major the app does not serve is refused 400", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const rt = uid("rt");
    const locked = await call("lock", job.id, { runtimeInstanceId: rt });
    expect(locked.body.job.outputSchemaVersion).toBe("v2");
    expect(locked.headers.get("deprecation")).toBeNull();
    const other = await call("heartbeat", job.id, { runtimeInstanceId: rt, attemptNo: 1 }, { protocol: "9.0.0" });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({
      code: "UNSUPPORTED_PROTOCOL_VERSION",
      details: { supported: ["1", "2"] },
    });
    expect((await getDb().runtimeInstance.findUniqueOrThrow({ where: { id: rt } })).protocolVersion).toBe(
      RUNTIME_PROTOCOL_VERSION,
    );
  });
});
