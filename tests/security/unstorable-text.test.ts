import { beforeAll, describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { fingerprint } from "../helpers/states";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { APP_URL, authRequest, setPassword, signedInCookie } from "../helpers/auth";
import { trpcHttp } from "../helpers/trpc-route";
import { getDb } from "@/server/db";
import { startApiServer } from "../runtime/api-server";

/**
 * Text PostgreSQL cannot store, and prototype-named failure codes, are
 * refused with a 400 naming the field at every door, and nothing changes.
 */
const NUL = "bad\u0000text";
const LONE = "bad\ud800text";

let learner: Learner;
let key: string;
beforeAll(async () => {
  learner = await createLearner();
  key = await runtimeKey();
});

async function lockedJob() {
  const rt = runtime(key, uid("rt"));
  const job = await createTestJob(learner, "weak_point_analysis");
  expect((await rt.lock(job.id)).status).toBe(200);
  return { rt, job };
}

function expectRefused(
  res: { status: number; body: { error: { code: string; details?: { path: string }[] } } },
  field: string,
) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe("INVALID_REQUEST");
  expect(res.body.error.details?.map((d) => d.path)).toContain(field);
}

describe("Runtime routes refuse NUL and lone surrogates, naming the field, changing nothing", () => {
  const cases: [string, string, (rt: ReturnType<typeof runtime>, id: string, kps: string[]) => Promise<unknown>][] = [
    ["heartbeat stage", "stage", (rt, id) => rt.heartbeat(id, 1, { stage: NUL })],
    ["heartbeat message", "message", (rt, id) => rt.heartbeat(id, 1, { message: LONE })],
    [
      "result output (NUL)",
      "output.weakPoints.0.title",
      (rt, id, kps) => {
        const out = validOutput("weak_point_analysis", kps) as { weakPoints: { title: string }[] };
        out.weakPoints[0]!.title = NUL;
        return rt.result(id, 1, out);
      },
    ],
    [
      "result output (lone surrogate)",
      "output.weakPoints.0.suggestedReview",
      (rt, id, kps) => {
        const out = validOutput("weak_point_analysis", kps) as { weakPoints: { suggestedReview: string }[] };
        out.weakPoints[0]!.suggestedReview = LONE;
        return rt.result(id, 1, out);
      },
    ],
    [
      "result modelName",
      "modelName",
      (rt, id, kps) => rt.result(id, 1, validOutput("weak_point_analysis", kps), { modelName: NUL }),
    ],
    ["fail errorMessage", "errorMessage", (rt, id) => rt.fail(id, 1, "NETWORK_ERROR", NUL)],
  ];
  for (const [name, field, act] of cases) {
    it(name, async () => {
      const { rt, job } = await lockedJob();
      const before = await fingerprint(job.id);
      const res = (await act(
        rt,
        job.id,
        learner.knowledgePoints.map((k) => k.id),
      )) as Parameters<typeof expectRefused>[0];
      expectRefused(res, field);
      expect(await fingerprint(job.id)).toEqual(before);
      // The job is not left locked up: the holder can still finish it normally.
      const ok = await rt.result(
        job.id,
        1,
        validOutput(
          "weak_point_analysis",
          learner.knowledgePoints.map((k) => k.id),
        ),
      );
      expect(ok.status).toBe(200);
    });
  }

  it("a NUL in an output key is refused too", async () => {
    const { rt, job } = await lockedJob();
    const res = (await rt.result(job.id, 1, { ["weak\u0000Points"]: [] })) as Parameters<typeof expectRefused>[0];
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_REQUEST");
    expect((await jobRow(job.id)).status).toBe("locked");
  });
});

describe("fail with a prototype-named errorCode (item 5)", () => {
  for (const code of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]) {
    it(`errorCode "${code}" → 400 UNKNOWN_ERROR_CODE, the job untouched`, async () => {
      const { rt, job } = await lockedJob();
      const before = await fingerprint(job.id);
      const res = await rt.fail(job.id, 1, code);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("UNKNOWN_ERROR_CODE");
      expect(await fingerprint(job.id)).toEqual(before);
    });
  }

  it('outputSchemaVersion "toString" is refused (400 INVALID_REQUEST, not a version), never a 500, and changes nothing', async () => {
    const { rt, job } = await lockedJob();
    const before = await fingerprint(job.id);
    const res = await rt.result(
      job.id,
      1,
      validOutput(
        "weak_point_analysis",
        learner.knowledgePoints.map((k) => k.id),
      ),
      { outputSchemaVersion: "toString" },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_REQUEST");
    expect(await fingerprint(job.id)).toEqual(before);
  });
});

describe("tRPC refuses NUL and lone surrogates before any procedure runs", () => {
  let cookie: string;
  beforeAll(async () => {
    await setPassword(learner.user.id, "nul-password-123");
    cookie = await signedInCookie(learner.user.email, "nul-password-123");
  });

  const count = () => getDb().aiRuntimeJob.count({ where: { userId: learner.user.id } });

  it("jobs.create with a NUL in target.id or idempotencyKey: 400 naming the field, no job", async () => {
    const before = await count();
    for (const [input, field] of [
      [{ jobType: "weak_point_analysis", target: { type: "user", id: `${learner.user.id}\u0000` } }, "target.id"],
      [
        { jobType: "weak_point_analysis", target: { type: "user", id: learner.user.id }, idempotencyKey: NUL },
        "idempotencyKey",
      ],
      [
        { jobType: "weak_point_analysis", target: { type: "user", id: learner.user.id }, idempotencyKey: LONE },
        "idempotencyKey",
      ],
    ] as const) {
      const res = await trpcHttp("mutation", "jobs.create", input, { cookie, origin: APP_URL });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.data.appCode).toBe("INVALID_REQUEST");
      expect(res.body.error.data.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    expect(await count()).toBe(before);
  });

  it("jobs.cancel and snapshots.get with a NUL: 400, not 500", async () => {
    const job = await createTestJob(learner);
    const cancel = await trpcHttp("mutation", "jobs.cancel", { jobId: `${job.id}\u0000` }, { cookie, origin: APP_URL });
    expect(cancel.status).toBe(400);
    expect(cancel.body.error.data.details[0].path).toBe("jobId");
    const snap = await trpcHttp("query", "snapshots.get", { snapshotId: "s\u0000" }, { cookie });
    expect(snap.status).toBe(400);
    expect(snap.body.error.data.appCode).toBe("INVALID_REQUEST");
    expect((await jobRow(job.id)).status).toBe("pending");
  });
});

describe("auth refuses NUL and lone surrogates", () => {
  it("sign-in with a NUL in the email: 400 INVALID_REQUEST, no throttle row", async () => {
    const email = `nul${uid()}\u0000@example.test`;
    // Sign-in counters are keyed by a digest of the email (main's SignInCounter), so count them all.
    const counters = await getDb().signInCounter.count();
    const res = await authRequest("/sign-in/email", { body: { email, password: "whatever-123" } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe("INVALID_REQUEST");
    expect(body.message).toContain("email");
    expect(await getDb().signInCounter.count()).toBe(counters);
  });
});

describe("over a real socket (the Node transport the app serves the protocol with)", () => {
  it("escaped NUL and lone surrogates in heartbeat and result bodies: 400 naming the field; then the job finishes normally", async () => {
    const api = await startApiServer();
    try {
      const { job } = await lockedJob();
      const holder = (await jobRow(job.id)).lockedBy!;
      const post = async (action: string, raw: string) => {
        const res = await fetch(`${api.url}/internal/runtime/jobs/${job.id}/${action}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body: raw,
        });
        return { status: res.status, body: await res.json() };
      };
      const before = await fingerprint(job.id);
      // The bytes on the wire are plain ASCII JSON escapes, exactly what a Runtime's JSON encoder sends.
      const hb = await post("heartbeat", `{"runtimeInstanceId":"${holder}","attemptNo":1,"message":"a\\u0000b"}`);
      expectRefused(hb, "message");
      const out = JSON.stringify(
        validOutput(
          "weak_point_analysis",
          learner.knowledgePoints.map((k) => k.id),
        ),
      ).replace('"Calvin cycle"', '"Calvin\\ud800cycle"');
      const result = await post("result", `{"runtimeInstanceId":"${holder}","attemptNo":1,"output":${out}}`);
      expectRefused(result, "output.weakPoints.0.title");
      expect(await fingerprint(job.id)).toEqual(before);
      const ok = await post(
        "result",
        JSON.stringify({
          runtimeInstanceId: holder,
          attemptNo: 1,
          output: validOutput(
            "weak_point_analysis",
            learner.knowledgePoints.map((k) => k.id),
          ),
        }),
      );
      expect(ok.status).toBe(200);
    } finally {
      await api.close();
    }
  });
});
