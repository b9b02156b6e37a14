import { describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { getDb } from "@/server/db";
import type { JobType } from "@/server/generated/prisma/enums";
import type { SnapshotContent } from "@/server/jobs/schemas";
import type { LearningAnalysis } from "@/server/job-types/learning-state-analysis";
import { analyse } from "@/server/providers/local";

/**
 * The evidence rules at the Runtime API's door: any Runtime's result that passes the schema and
 * the API's rules but contradicts its snapshot is stored degraded, whatever the Runtime reported.
 */
async function heldJob(jobType: JobType, params: Record<string, unknown> = {}) {
  const learner = await createLearner();
  const job = await createTestJob(learner, jobType, { params });
  const rt = runtime(await runtimeKey(), uid("rt"));
  expect((await rt.lock(job.id)).status).toBe(200);
  const row = await jobRow(job.id);
  const snapshot = (await getDb().snapshot.findUniqueOrThrow({ where: { id: row.snapshotId! } }))
    .content as SnapshotContent;
  const truth = analyse(jobType, snapshot, params, new Date(), "en");
  return { job, rt, snapshot, truth };
}

describe("evidence rules on results submitted through the Runtime API", () => {
  it("stores a result true to its snapshot as it was reported (not degraded), as v2", async () => {
    const { job, rt, truth } = await heldJob("learning_state_analysis");
    const res = await rt.result(job.id, 1, truth);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await jobRow(job.id)).result).toMatchObject({ degraded: false, outputSchemaVersion: "v2" });
  });

  it("stores degraded a result that contradicts its snapshot, though the Runtime said it was not", async () => {
    const { job, rt, truth, snapshot } = await heldJob("learning_state_analysis");
    const s = truth as LearningAnalysis;
    const kp = snapshot.knowledgePoints[0]!;
    // A strength for a point the learner never practised, with answers the snapshot does not hold.
    const bad = {
      ...s,
      strengths: [{ knowledgePointId: kp.id, text: `${kp.title}: 100% mastery over 5 answers` }],
      knowledgePoints: s.knowledgePoints.map((k) =>
        k.knowledgePointId === kp.id ? { ...k, attempts: 5, mastery: 1 } : k,
      ),
    };
    const res = await rt.result(job.id, 1, bad, { degraded: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await jobRow(job.id)).result).toMatchObject({ degraded: true });
  });

  it("checks the results of a batch the same way", async () => {
    const a = await heldJob("next_action_planning", { timeBudgetMinutes: 60 });
    const plan = a.truth as { actions: Record<string, unknown>[] };
    const kp = a.snapshot.knowledgePoints[0]!;
    const twice = {
      actions: [0, 1].map((i) => ({
        actionType: "practice",
        target: { type: "knowledge_point", id: kp.id },
        title: `Practise ${kp.title} (${i})`,
        reason: "Weak.",
        priority: 2,
        estimatedMinutes: 10,
      })),
    };
    expect(plan.actions.length).toBeGreaterThan(0);
    const res = await a.rt.results([{ jobId: a.job.id, jobType: "next_action_planning", attemptNo: 1, output: twice }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await jobRow(a.job.id)).result).toMatchObject({ degraded: true });
  });

  it("still accepts a v1 learning-state result (strengths as sentences) and checks what it can", async () => {
    const { job, rt, truth } = await heldJob("learning_state_analysis");
    const s = truth as LearningAnalysis;
    const { strongestKnowledgePointId: _omit, ...rest } = s;
    const v1 = { ...rest, strengths: s.strengths.map((x) => x.text), risks: s.risks.map((x) => x.text) };
    const res = await rt.result(job.id, 1, v1, { outputSchemaVersion: "v1" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await jobRow(job.id)).result).toMatchObject({ degraded: false, outputSchemaVersion: "v1" });
  });
});
