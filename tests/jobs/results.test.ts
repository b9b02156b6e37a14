import { describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { getDb } from "@/server/db";
import type { JobType } from "@/server/generated/prisma/enums";

async function runningJob(jobType: JobType, params?: Record<string, unknown>) {
  const learner = await createLearner();
  const job = await createTestJob(learner, jobType, params ? { params } : {});
  const rt = runtime(await runtimeKey(), uid("rt"));
  expect((await rt.lock(job.id)).status).toBe(200);
  expect((await rt.heartbeat(job.id, 1)).status).toBe(200);
  return { learner, job, rt, kpIds: learner.knowledgePoints.map((k) => k.id) };
}

describe("result submission", () => {
  it("the same output again answers 200 idempotent and writes nothing twice", async () => {
    const { job, rt, kpIds } = await runningJob("flashcard_generation", { count: 3 });
    const output = validOutput("flashcard_generation", kpIds, { count: 3 });
    const first = await rt.result(job.id, 1, output);
    expect(first.body).toMatchObject({ status: "succeeded", idempotent: false });
    // Same content, different key order: canonical JSON gives the same hash.
    const reordered = {
      flashcards: output.flashcards!.map((c) => ({
        tags: c.tags,
        knowledgePointId: c.knowledgePointId,
        back: c.back,
        front: c.front,
      })),
    };
    const again = await rt.result(job.id, 1, reordered);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: "succeeded", resultId: first.body.resultId, idempotent: true });
    // The repeat says what the first answer said of the stored result.
    expect(again.body.degraded).toBe(first.body.degraded);
    expect(await getDb().aiRuntimeResult.count({ where: { jobId: job.id } })).toBe(1);
    expect((await jobRow(job.id)).events.filter((e) => e.toStatus === "succeeded")).toHaveLength(1);
  });

  it("a different output after success is 409 RESULT_ALREADY_EXISTS and the first result stays", async () => {
    const { job, rt, kpIds } = await runningJob("weak_point_analysis");
    const output = validOutput("weak_point_analysis", kpIds);
    const first = await rt.result(job.id, 1, output);
    const other = structuredClone(output);
    other.weakPoints![0]!.severity = "low";
    const second = await rt.result(job.id, 1, other);
    expect([second.status, second.body.error.code]).toEqual([409, "RESULT_ALREADY_EXISTS"]);
    const row = await jobRow(job.id);
    expect(row.result!.id).toBe(first.body.resultId);
    expect((row.result!.output as typeof output).weakPoints![0]!.severity).toBe("high");
  });

  it("output off the v1 schema is 422 INVALID_SCHEMA and fails the job without retry", async () => {
    const { job, rt } = await runningJob("learning_state_analysis");
    const res = await rt.result(job.id, 1, { summary: "no other fields" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("INVALID_SCHEMA");
    expect(res.body.error.details.length).toBeGreaterThan(0);
    const row = await jobRow(job.id);
    expect(row.status).toBe("failed");
    expect(row.errorCode).toBe("INVALID_SCHEMA");
    expect(row.retryCount).toBe(0);
    expect(row.result).toBeNull();
    expect(row.events.at(-1)).toMatchObject({ fromStatus: "running", toStatus: "failed", errorCode: "INVALID_SCHEMA" });
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each case edits a different output shape
  type Editable = any;
  const qualityCases: [string, JobType, Record<string, unknown>, (o: Editable) => void, RegExp][] = [
    [
      "a knowledge point not in the snapshot",
      "weak_point_analysis",
      {},
      (o) => (o.weakPoints[0].knowledgePointId = "kp_elsewhere"),
      /not in the snapshot/,
    ],
    [
      "duplicate question stems",
      "quiz_generation",
      { count: 2 },
      (o) => (o.questions[1].stem = o.questions[0].stem),
      /duplicate stem/,
    ],
    [
      "two options equal to the answer",
      "quiz_generation",
      { count: 1 },
      (o) => (o.questions[0].options = ["B", "b", "C"]),
      /options repeat|exactly one/,
    ],
    [
      "a single choice with one option",
      "quiz_generation",
      { count: 1 },
      (o) => (o.questions[0].options = ["B"]),
      /at least two/,
    ],
    [
      "fewer questions than requested",
      "quiz_generation",
      { count: 3 },
      (o) => o.questions.pop(),
      /2 generated, 3 requested/,
    ],
    [
      "duplicate card fronts",
      "flashcard_generation",
      { count: 2 },
      (o) => (o.flashcards[1].front = o.flashcards[0].front),
      /duplicate front/,
    ],
  ];
  for (const [name, jobType, params, mutate, finding] of qualityCases) {
    it(`quality rule: ${name} → 422 INVALID_SCHEMA`, async () => {
      const { job, rt, kpIds } = await runningJob(jobType, params);
      const output = validOutput(jobType, kpIds, params);
      mutate(output);
      const res = await rt.result(job.id, 1, output);
      expect(res.status).toBe(422);
      expect(
        res.body.error.details.map((v: { path: string; message: string }) => `${v.path}: ${v.message}`).join("\n"),
      ).toMatch(finding);
      expect((await jobRow(job.id)).status).toBe("failed");
    });
  }

  it("result straight from locked (no heartbeat) succeeds and records locked → succeeded", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "next_action_planning");
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.lock(job.id);
    const res = await rt.result(
      job.id,
      1,
      validOutput(
        "next_action_planning",
        learner.knowledgePoints.map((k) => k.id),
      ),
      {
        degraded: true,
        usage: { promptTokens: 10, completionTokens: 20 },
      },
    );
    expect(res.status).toBe(200);
    const row = await jobRow(job.id);
    expect(row.events.at(-1)).toMatchObject({ fromStatus: "locked", toStatus: "succeeded" });
    expect(row.result).toMatchObject({ degraded: true, usage: null });
    expect(await getDb().jobUsage.findMany({ where: { jobId: job.id } })).toMatchObject([
      { attemptNo: 1, promptTokens: 10, completionTokens: 20, outcome: "succeeded" },
    ]);
  });
});
