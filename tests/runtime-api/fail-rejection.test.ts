import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { advanceClock, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { cancelJob } from "@/server/jobs/cancel";
import { REJECTED_OUTPUT_CAP_BYTES } from "@/server/jobs/rejection";
import { REJECTION_LIMITS } from "@/server/runtime-api/contract";
import { buildOpenApiDocument } from "@/server/runtime-api/openapi";
import { callerAs } from "../helpers/auth";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { fingerprint } from "../helpers/states";
import { call, runtime } from "../helpers/runtime-api";

/**
 * A Runtime that gives up after its own quality loop reports `fail` with the last output it
 * rejected and the rules it broke; the API keeps them at that attempt through the same
 * JobRejection row the 422 path writes, so the console and the explorer see them alike.
 */
let admin: Learner;
let learner: Learner;
beforeAll(async () => {
  [admin, learner] = await Promise.all([createLearner({ role: "admin" }), createLearner()]);
});
afterEach(() => resetClock());

const MODEL_SENT = {
  weakPoints: [
    { knowledgePointId: "kp_nowhere", title: "Fractions", severity: "high", evidence: ["e"], suggestedReview: "r" },
  ],
};
const BROKEN = [
  {
    path: "weakPoints.0.knowledgePointId",
    rule: "knowledge_point_unknown",
    message: "knowledgePointId kp_nowhere is not in the snapshot",
  },
];

async function held() {
  const key = await runtimeKey();
  const rt = runtime(key, uid("rt"));
  const job = await createTestJob(learner, "weak_point_analysis");
  expect((await rt.lock(job.id)).status).toBe(200);
  const fail = (body: Record<string, unknown>, attemptNo = 1) =>
    call(
      "fail",
      job.id,
      {
        runtimeInstanceId: rt.id,
        attemptNo,
        errorCode: "INVALID_SCHEMA",
        errorMessage: "still invalid after 3 quality loops",
        ...body,
      },
      { key },
    );
  return { job, rt, key, fail };
}
const rejections = (jobId: string) =>
  getDb().jobRejection.findMany({ where: { jobId }, orderBy: { attemptNo: "asc" } });

describe("fail with a rejected output", () => {
  it("keeps it at that attempt with its violations: the admin job page and the explorer's rule filter see it", async () => {
    const { job, fail } = await held();
    const res = await fail({ rejectedOutput: MODEL_SENT, violations: BROKEN, usage: { promptTokens: 40 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "failed" });
    const [row] = await rejections(job.id);
    expect(row).toMatchObject({
      attemptNo: 1,
      truncated: false,
      violations: BROKEN,
      rules: ["knowledge_point_unknown"],
    });
    expect(JSON.parse(row!.output)).toEqual(MODEL_SENT);
    expect(row!.outputBytes).toBe(Buffer.byteLength(JSON.stringify(MODEL_SENT)));
    // The rejection commits with the failure and the attempt's usage, in one statement.
    expect(await getDb().jobUsage.count({ where: { jobId: job.id } })).toBe(1);

    const detail = await callerAs(admin.user).admin.explorer.detail({ jobId: job.id });
    expect(detail.rejections).toMatchObject([{ attemptNo: 1, truncated: false, violations: BROKEN }]);
    const byRule = await callerAs(admin.user).admin.explorer.list({
      filter: { rule: "knowledge_point_unknown", user: learner.user.id },
      limit: 200,
    });
    expect(byRule.items.map((i) => i.id)).toContain(job.id);
  });

  it("is kept at the attempt that reported it (attempt 2 after a retryable attempt 1 without one)", async () => {
    const { job, rt, fail } = await held();
    expect((await fail({ errorCode: "MODEL_TIMEOUT", errorMessage: "slow" })).body).toMatchObject({
      status: "pending",
    });
    advanceClock(3_600_000);
    expect((await rt.lock(job.id)).status).toBe(200);
    expect(
      (
        await fail(
          {
            rejectedOutput: "Sorry, I cannot answer in JSON.",
            violations: [{ path: "", rule: "not_json", message: "not JSON" }],
          },
          2,
        )
      ).status,
    ).toBe(200);
    const rows = await rejections(job.id);
    expect(rows.map((r) => r.attemptNo)).toEqual([2]);
    expect(rows[0]!.output).toBe('"Sorry, I cannot answer in JSON."');
    expect(rows[0]!.rules).toEqual(["not_json"]);
  });

  it("an output over 64 KB is cut on a character boundary and marked truncated, with its real size", async () => {
    const { job, fail } = await held();
    const big = { weakPoints: [{ ...MODEL_SENT.weakPoints[0], evidence: ["é".repeat(60_000)] }] };
    expect((await fail({ rejectedOutput: big, violations: BROKEN })).status).toBe(200);
    const [row] = await rejections(job.id);
    expect(row!.truncated).toBe(true);
    expect(row!.outputBytes).toBe(Buffer.byteLength(JSON.stringify(big)));
    expect(Buffer.byteLength(row!.output)).toBeLessThanOrEqual(REJECTED_OUTPUT_CAP_BYTES);
    expect(Buffer.byteLength(row!.output)).toBeGreaterThan(REJECTED_OUTPUT_CAP_BYTES - 4);
    expect(JSON.stringify(big).startsWith(row!.output)).toBe(true);
  });

  it("an output the Runtime cut itself (the start of its JSON text) is stored as text with the size it reported", async () => {
    const { job, fail } = await held();
    const text = JSON.stringify(MODEL_SENT).slice(0, 40);
    expect(
      (
        await fail({
          rejectedOutput: text,
          rejectedOutputTruncated: true,
          rejectedOutputBytes: 900_000,
          violations: BROKEN,
        })
      ).status,
    ).toBe(200);
    const [row] = await rejections(job.id);
    expect(row).toMatchObject({ output: text, truncated: true, outputBytes: 900_000 });
  });

  it("prototype names are data: kept as sent, nothing polluted, never a 5xx", async () => {
    const { job, key, rt } = await held();
    const raw = `{"runtimeInstanceId":"${rt.id}","attemptNo":1,"errorCode":"INVALID_SCHEMA",
      "rejectedOutput":{"__proto__":{"polluted":true},"toString":"x","constructor":{"prototype":1}},
      "violations":[{"path":"__proto__","rule":"constructor","message":"toString","__proto__":{"polluted":true}}]}`;
    const res = await call("fail", job.id, null, { key, rawBody: raw });
    expect(res.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const [row] = await rejections(job.id);
    expect(JSON.parse(row!.output)).toEqual(
      JSON.parse('{"__proto__":{"polluted":true},"toString":"x","constructor":{"prototype":1}}'),
    );
    expect(row!.violations).toEqual([{ path: "__proto__", rule: "constructor", message: "toString" }]);
  });

  it("without one, fail is unchanged: no rejection row", async () => {
    const { job, fail } = await held();
    const res = await fail({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "failed", retryCount: 0, runAfter: null });
    expect((await jobRow(job.id)).errorCode).toBe("INVALID_SCHEMA");
    expect(await rejections(job.id)).toEqual([]);
  });

  it("a cancel-requested job ends cancelled and keeps nothing of the learner's analysis", async () => {
    const { job, fail } = await held();
    await cancelJob(job.id, { type: "learner", id: learner.user.id });
    const res = await fail({ rejectedOutput: MODEL_SENT, violations: BROKEN });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("JOB_CANCELLED");
    expect((await jobRow(job.id)).status).toBe("cancelled");
    expect(await rejections(job.id)).toEqual([]);
  });

  it("a second report of the same attempt is LOCK_LOST and keeps the first", async () => {
    const { job, fail } = await held();
    expect((await fail({ rejectedOutput: { a: 1 } })).status).toBe(200);
    expect((await fail({ rejectedOutput: { b: 2 } })).status).toBe(409);
    expect((await rejections(job.id)).map((r) => r.output)).toEqual(['{"a":1}']);
  });
});

describe("hostile rejections: 400 INVALID_REQUEST naming the field, nothing written", () => {
  const deep = (n: number) => JSON.parse("[".repeat(n) + "]".repeat(n)) as unknown;
  const v = BROKEN[0]!;
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "a NUL deep inside the output",
      { rejectedOutput: { weakPoints: [{ title: "a\u0000b" }] } },
      "rejectedOutput.weakPoints.0.title",
    ],
    ["a lone surrogate in an output key", { rejectedOutput: { ["k\ud800"]: 1 } }, "rejectedOutput"],
    [
      "a NUL in a violation's message",
      { rejectedOutput: {}, violations: [{ ...v, message: "x\u0000" }] },
      "violations.0.message",
    ],
    [
      "a lone surrogate in a violation's path",
      { rejectedOutput: {}, violations: [{ ...v, path: "a\udc00" }] },
      "violations.0.path",
    ],
    [
      "too many violations",
      { rejectedOutput: {}, violations: Array(REJECTION_LIMITS.violations + 1).fill(v) },
      "violations",
    ],
    [
      "a path over 256 characters",
      { rejectedOutput: {}, violations: [{ ...v, path: "p".repeat(257) }] },
      "violations.0.path",
    ],
    [
      "a message over 500 characters",
      { rejectedOutput: {}, violations: [{ ...v, message: "m".repeat(501) }] },
      "violations.0.message",
    ],
    [
      "a rule that is not a rule name",
      { rejectedOutput: {}, violations: [{ ...v, rule: "x'; DROP TABLE" }] },
      "violations.0.rule",
    ],
    [
      "a violation that is not an object",
      { rejectedOutput: {}, violations: ["knowledge_point_unknown"] },
      "violations.0",
    ],
    ["an output nested 65 levels", { rejectedOutput: deep(65) }, "rejectedOutput"],
    ["violations without the output", { violations: BROKEN }, "rejectedOutput"],
    [
      "a truncated output that is not text",
      { rejectedOutput: { a: 1 }, rejectedOutputTruncated: true },
      "rejectedOutput",
    ],
  ];
  for (const [name, body, field] of cases) {
    it(name, async () => {
      const { job, fail } = await held();
      const before = await fingerprint(job.id);
      const res = await fail(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
      expect(
        res.body.error.details
          .map((d: { path: string }) => d.path)
          .some((p: string) => p === field || p.startsWith(`${field}.`)),
      ).toBe(true);
      expect(await fingerprint(job.id)).toEqual(before);
      expect(await rejections(job.id)).toEqual([]);
      expect(await getDb().jobUsage.count({ where: { jobId: job.id } })).toBe(0);
    });
  }

  it("an output nested 60,000 levels (the whole body limit) is a 400, never a 5xx", async () => {
    const { job, key, rt } = await held();
    const raw = `{"runtimeInstanceId":"${rt.id}","attemptNo":1,"errorCode":"INVALID_SCHEMA","rejectedOutput":${"[".repeat(60_000)}${"]".repeat(60_000)}}`;
    const res = await call("fail", job.id, null, { key, rawBody: raw });
    expect(res.status).toBe(400);
    expect(await rejections(job.id)).toEqual([]);
  });
});

describe("the contract", () => {
  it("publishes the rejection fields and limits in the OpenAPI document", () => {
    const doc = buildOpenApiDocument() as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const fail = doc.components.schemas.FailJobRequest;
    expect(fail.properties).toHaveProperty("rejectedOutput");
    expect(fail.properties.violations).toMatchObject({ type: "array", maxItems: REJECTION_LIMITS.violations });
    expect(fail.properties.violations.items.properties.path).toMatchObject({ maxLength: REJECTION_LIMITS.path });
    expect(doc["x-runtime-limits"]).toMatchObject({
      rejectedOutputBytes: REJECTED_OUTPUT_CAP_BYTES,
      violations: REJECTION_LIMITS.violations,
    });
    expect(doc.paths["/internal/runtime/jobs/{jobId}/fail"].post.summary).toMatch(/rejectedOutput/);
  });
});
