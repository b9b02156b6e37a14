import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { setConsent } from "@/server/jobs/consent";
import { REJECTED_OUTPUT_CAP_BYTES } from "@/server/jobs/rejection";
import { submitResult } from "@/server/jobs/results";
import { callerAs } from "../helpers/auth";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { runtime } from "../helpers/runtime-api";

/** Failure diagnosis: a refused output is kept per attempt with its violations, shown to admins, filterable. */
let admin: Learner;
let learner: Learner;
const asAdmin = () => callerAs(admin.user);

beforeAll(async () => {
  [admin, learner] = await Promise.all([createLearner({ role: "admin" }), createLearner()]);
});
afterAll(async () => setConsent(learner.user.id, false, { type: "learner", id: learner.user.id }));

async function heldQuiz(count: number) {
  const rt = runtime(await runtimeKey(), uid("rt"));
  const job = await createTestJob(learner, "quiz_generation", { params: { count } });
  expect((await rt.lock(job.id)).status).toBe(200);
  return { job, rt, kpIds: learner.knowledgePoints.map((k) => k.id) };
}

describe("a refused output", () => {
  it("is kept for its attempt with [{path, rule, message}], the same list the Runtime gets in the 422", async () => {
    const { job, rt, kpIds } = await heldQuiz(2);
    const output = validOutput("quiz_generation", kpIds, { count: 2 }) as {
      questions: { options: string[]; knowledgePointId: string }[];
    };
    output.questions[1]!.options = ["B", "b", "C"];
    output.questions[0]!.knowledgePointId = "kp_elsewhere";
    const res = await rt.result(job.id, 1, output);
    expect(res.status).toBe(422);
    const details = res.body.error.details as { path: string; rule: string; message: string }[];
    expect(details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "questions.0.knowledgePointId", rule: "knowledge_point_unknown" }),
        expect.objectContaining({ path: "questions.1.options", rule: "options_repeat" }),
        expect.objectContaining({ path: "questions.1.answer", rule: "one_correct_option" }),
      ]),
    );

    const row = await jobRow(job.id);
    expect(row.status).toBe("failed");
    const detail = await asAdmin().admin.explorer.detail({ jobId: job.id });
    expect(detail.rejections).toHaveLength(1);
    const rej = detail.rejections[0]!;
    expect(rej).toMatchObject({ attemptNo: 1, truncated: false });
    expect(rej.violations).toEqual(details);
    expect(JSON.parse(rej.output)).toEqual(output);
  });

  it("schema violations carry zod's issue code as the rule and the field's path", async () => {
    const rt = runtime(await runtimeKey(), uid("rt"));
    const job = await createTestJob(learner, "learning_state_analysis");
    await rt.lock(job.id);
    const res = await rt.result(job.id, 1, { summary: "only this", overallMastery: 7 });
    expect(res.status).toBe(422);
    const details = res.body.error.details as { path: string; rule: string }[];
    expect(details).toContainEqual(expect.objectContaining({ path: "overallMastery", rule: "schema.too_big" }));
    expect(details).toContainEqual(expect.objectContaining({ path: "engagementLevel", rule: "schema.invalid_value" }));
    const stored = await getDb().jobRejection.findUniqueOrThrow({
      where: { jobId_attemptNo: { jobId: job.id, attemptNo: 1 } },
    });
    expect(stored.rules).toEqual(expect.arrayContaining(["schema.too_big", "schema.invalid_value"]));
  });

  it("is capped at 64 KB and marked truncated, with its real size", async () => {
    const { job, rt, kpIds } = await heldQuiz(1);
    const output = validOutput("quiz_generation", kpIds, { count: 1 }) as {
      questions: { explanation: string; options: string[] }[];
    };
    // 100 KB of multi-byte text: the cut must land on a character boundary.
    output.questions[0]!.explanation = "é".repeat(50_000);
    output.questions[0]!.options = ["A", "C"];
    const res = await rt.result(job.id, 1, output);
    expect(res.status).toBe(422);
    const stored = await getDb().jobRejection.findUniqueOrThrow({
      where: { jobId_attemptNo: { jobId: job.id, attemptNo: 1 } },
    });
    expect(stored.truncated).toBe(true);
    expect(stored.outputBytes).toBe(Buffer.byteLength(JSON.stringify(output)));
    expect(Buffer.byteLength(stored.output)).toBeLessThanOrEqual(REJECTED_OUTPUT_CAP_BYTES);
    expect(Buffer.byteLength(stored.output)).toBeGreaterThan(REJECTED_OUTPUT_CAP_BYTES - 4);
    expect(stored.output).not.toContain("\uFFFD");
    expect(JSON.stringify(output).startsWith(stored.output)).toBe(true);
  });

  it("hostile keys (__proto__, toString) are kept as data and answered 422, never a 5xx", async () => {
    const { job, rt } = await heldQuiz(1);
    const raw = '{"__proto__":{"polluted":true},"toString":"x","questions":"nope"}';
    const res = await rt.result(job.id, 1, JSON.parse(raw));
    expect(res.status).toBe(422);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const detail = await asAdmin().admin.explorer.detail({ jobId: job.id });
    expect(detail.rejections[0]!.violations.some((v) => v.path === "questions")).toBe(true);
  });

  it("text PostgreSQL cannot store in jsonb (NUL) inside a refused output is kept as a stand-in, never a 5xx", async () => {
    // The HTTP door refuses NUL with 400; the in-app worker calls the domain directly, as here.
    const { job, rt } = await heldQuiz(1);
    const output = { questions: [], ["bad\u0000key"]: "x\u0000y" };
    await expect(submitResult(job.id, { runtimeInstanceId: rt.id, attemptNo: 1, output })).rejects.toMatchObject({
      code: "INVALID_SCHEMA",
    });
    const stored = await getDb().jobRejection.findUniqueOrThrow({
      where: { jobId_attemptNo: { jobId: job.id, attemptNo: 1 } },
    });
    expect(JSON.stringify(stored.violations)).toContain("\ufffd");
    expect(JSON.parse(stored.output)).toEqual(output);
  });

  it("a second submission for the same attempt is LOCK_LOST and keeps the first rejection", async () => {
    const { job, rt } = await heldQuiz(1);
    expect((await rt.result(job.id, 1, { questions: [] })).status).toBe(422);
    expect((await rt.result(job.id, 1, { questions: "other" })).status).toBe(409);
    const rows = await getDb().jobRejection.findMany({ where: { jobId: job.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.output).toBe('{"questions":[]}');
  });
});

describe("the explorer", () => {
  it("filters by violated rule", async () => {
    const { job: a, rt, kpIds } = await heldQuiz(1);
    const bad = validOutput("quiz_generation", kpIds, { count: 1 }) as { questions: { difficulty: string }[] };
    bad.questions[0]!.difficulty = "extreme";
    await rt.result(a.id, 1, bad);
    const { job: b, rt: rt2 } = await heldQuiz(2);
    await rt2.result(b.id, 1, validOutput("quiz_generation", kpIds, { count: 1 }));

    const byRule = async (rule: string) =>
      (await asAdmin().admin.explorer.list({ filter: { rule, user: learner.user.id }, limit: 200 })).items.map(
        (r) => r.id,
      );
    expect(await byRule("schema.invalid_value")).toContain(a.id);
    expect(await byRule("schema.invalid_value")).not.toContain(b.id);
    expect(await byRule("count_mismatch")).toContain(b.id);
    expect(await byRule("count_mismatch")).not.toContain(a.id);
    expect(
      (await asAdmin().admin.explorer.count({ filter: { rule: "duplicate_front", user: learner.user.id } })).total,
    ).toBe(0);
  });

  it("refuses a rule that is not a rule name with a 400, never a 500", async () => {
    await expect(
      asAdmin().admin.explorer.list({ filter: { rule: "x'; DROP TABLE" }, limit: 10 }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("is admin-only", async () => {
    await expect(
      callerAs(learner.user).admin.explorer.list({ filter: { rule: "count_mismatch" }, limit: 10 }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
