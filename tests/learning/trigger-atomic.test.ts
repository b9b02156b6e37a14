import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { triggerAnalyses } from "@/server/learning/trigger";
import { ANY_TARGET_TYPES as JOB_TYPES } from "@/server/job-types";
import type { Target } from "@/server/jobs/snapshot";
import { createLearner, createTestJob } from "../helpers/factories";

/**
 * "Run all five" is one transaction. Racing triggers of one learner near the hourly
 * limit: each either made all five jobs or — answering 429 — none (before, 7 jobs were made by
 * triggers that all answered 429).
 */
process.env.QUOTA_JOBS_PER_HOUR = "12";
process.env.QUOTA_JOBS_PER_DAY = "100";
process.env.QUOTA_JOB_TYPE_PER_HOUR = "none";

describe("a multi-type trigger creates all its jobs or none", () => {
  it("six concurrent Run-all-five triggers with room for ten jobs: two make five each, four answer 429 and make nothing", async () => {
    const l = await createLearner();
    const extra = await Promise.all(
      ["Stomata", "ATP"].map((title) =>
        getDb().knowledgePoint.create({
          data: { userId: l.user.id, materialId: l.material.id, title, description: title },
        }),
      ),
    );
    // Two of twelve used: room for ten.
    for (let i = 0; i < 2; i++)
      await createTestJob(l, "learning_state_analysis", { target: { type: "material", id: l.material.id } });
    const targets: Target[] = [
      { type: "user", id: l.user.id },
      ...[...l.knowledgePoints, ...extra].map((k) => ({ type: "knowledge_point" as const, id: k.id })),
    ];
    expect(targets).toHaveLength(6);

    const outcomes = await Promise.all(
      targets.map((target) =>
        triggerAnalyses({
          userId: l.user.id,
          actor: { type: "learner", id: l.user.id },
          target,
          jobTypes: [...JOB_TYPES],
        }).then(
          (r) => ({ target, ok: true as const, created: r.items.filter((i) => i.created).length }),
          (e: { code?: string }) => ({ target, ok: false as const, code: e.code }),
        ),
      ),
    );
    const madeFor = async (t: Target) =>
      getDb().aiRuntimeJob.count({ where: { userId: l.user.id, targetType: t.type, targetId: t.id } });
    for (const o of outcomes) {
      if (o.ok) {
        expect(o.created).toBe(5);
        expect(await madeFor(o.target)).toBe(5);
      } else {
        expect(o.code).toBe("QUOTA_EXCEEDED");
        expect(await madeFor(o.target)).toBe(0);
      }
    }
    expect(outcomes.filter((o) => o.ok)).toHaveLength(2);
    expect(await getDb().aiRuntimeJob.count({ where: { userId: l.user.id } })).toBe(12);
    const used = await getDb().quotaUsage.findMany({ where: { userId: l.user.id, metric: "jobs", period: "hour" } });
    expect(used.map((u) => u.used)).toEqual([12]);
  });

  it("a trigger whose jobs are partly in flight already makes only the rest, in one go", async () => {
    const l = await createLearner();
    const target: Target = { type: "material", id: l.material.id };
    const first = await triggerAnalyses({
      userId: l.user.id,
      actor: { type: "learner", id: l.user.id },
      target,
      jobTypes: ["learning_state_analysis", "weak_point_analysis"],
    });
    expect(first.items.map((i) => i.created)).toEqual([true, true]);
    const second = await triggerAnalyses({
      userId: l.user.id,
      actor: { type: "learner", id: l.user.id },
      target,
      jobTypes: ["weak_point_analysis", "flashcard_generation", "learning_state_analysis"],
    });
    expect(second.items.map((i) => [i.jobType, i.created])).toEqual([
      ["weak_point_analysis", false],
      ["flashcard_generation", true],
      ["learning_state_analysis", false],
    ]);
    expect(second.items[0]!.job.id).toBe(first.items[1]!.job.id);
    // One trigger's new jobs take consecutive fair-queue turns.
    expect(await getDb().aiRuntimeJob.count({ where: { userId: l.user.id } })).toBe(3);
  });
});
