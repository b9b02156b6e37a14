import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { advanceClock, resetClock } from "@/server/clock";
import type { JobType } from "@/server/generated/prisma/enums";
import type { LearningAnalysis } from "@/server/job-types/learning-state-analysis";
import type { WeakPoints } from "@/server/job-types/weak-point-analysis";
import type { NextActions } from "@/server/job-types/next-action-planning";
import { hashJson } from "@/server/jobs/hashing";
import { createTestJob, jobRow, runtimeKey, type Learner } from "../helpers/factories";
import { eventually, startApiServer } from "../runtime/api-server";
import { startTestRuntime } from "../runtime/harness";
import { holdClockAtNoon, learnerWithCards, rateAll } from "./evidence-setup";

/** The same learner's analyses before and after reviews, through the real job path: API, lease over HTTP, reference Runtime (local analyzer). */
let api: Awaited<ReturnType<typeof startApiServer>>;
let rt: ReturnType<typeof startTestRuntime>;

beforeAll(async () => {
  api = await startApiServer();
  // Only the analyses: the deck a test makes is run to its result by the test itself.
  const jobTypes: JobType[] = ["learning_state_analysis", "weak_point_analysis", "next_action_planning"];
  rt = startTestRuntime(api.url, await runtimeKey({ jobTypes, mayReceiveLearnerKeys: true }));
});
afterAll(async () => {
  await rt.runtime.shutdown(0);
  await api.close();
});
beforeEach(() => holdClockAtNoon());
afterEach(() => resetClock());

async function run(learner: Learner, jobType: JobType, extra: Parameters<typeof createTestJob>[2] = {}) {
  const job = await createTestJob(learner, jobType, {
    ...(jobType === "next_action_planning" ? { params: { timeBudgetMinutes: 60 } } : {}),
    ...extra,
  });
  const row = await eventually(`${jobType} succeeded`, async () => {
    const r = await jobRow(job.id);
    return r.status === "succeeded" ? r : null;
  });
  return { snapshotId: row.snapshotId!, output: row.result!.output as never };
}

describe("analysis jobs before and after reviews", () => {
  it("a new snapshot, and the lapsed point becomes a risk, a weak point and the first review", async () => {
    const { learner, light, calvin } = await learnerWithCards();
    const me = learner.user.id;
    const state1 = await run(learner, "learning_state_analysis");
    const weak1 = await run(learner, "weak_point_analysis");
    const plan1 = await run(learner, "next_action_planning");
    // Unchanged reviews: the three jobs read one snapshot.
    expect(new Set([state1.snapshotId, weak1.snapshotId, plan1.snapshotId]).size).toBe(1);

    await rateAll(me, light.id, "again");
    await rateAll(me, calvin.id, "easy");
    // The failed cards' learning step: due in the Review view, so due in the snapshot.
    advanceClock(10 * 60_000);
    const state2 = await run(learner, "learning_state_analysis");
    const weak2 = await run(learner, "weak_point_analysis");
    const plan2 = await run(learner, "next_action_planning");
    expect(state2.snapshotId).not.toBe(state1.snapshotId);
    expect(weak2.snapshotId).toBe(state2.snapshotId);

    const s1 = state1.output as LearningAnalysis;
    const s2 = state2.output as LearningAnalysis;
    expect(s1.risks.some((r) => r.text.includes("Light reactions"))).toBe(false);
    expect(s2.risks[0]!.text).toMatch(
      /^Light reactions: slipping in reviews \(2 cards forgotten at the latest review, 2 cards due\)$/,
    );
    expect((weak1.output as WeakPoints).weakPoints).toEqual([]);
    expect((weak2.output as WeakPoints).weakPoints.map((w) => [w.knowledgePointId, w.severity])).toEqual([
      [light.id, "medium"],
    ]);
    const targets = (p: NextActions) => p.actions.filter((a) => a.actionType === "review").map((a) => a.target.id);
    expect(targets(plan1.output).sort()).toEqual([light.id, calvin.id].sort());
    expect(targets(plan2.output)).toEqual([light.id]);
    expect((plan2.output as NextActions).actions[0]!.title).toBe("Review the 2 due cards of Light reactions");
  });

  it("a job on a snapshot stored without review evidence still runs to a result", async () => {
    const { learner } = await learnerWithCards();
    const me = learner.user.id;
    const db = getDb();
    const row = await db.snapshot.findUniqueOrThrow({
      where: { id: (await run(learner, "learning_state_analysis")).snapshotId },
      select: { targetType: true, targetId: true, content: true },
    });
    const { reviews, ...content } = row.content as Record<string, unknown>;
    expect(reviews).toBeDefined();
    // The deck's job captured this very content before the cards existed: one row, stored once.
    const contentHash = hashJson(content);
    const old = await db.snapshot.upsert({
      where: { userId_contentHash: { userId: me, contentHash } },
      create: {
        userId: me,
        targetType: row.targetType,
        targetId: row.targetId,
        contentHash,
        content: content as never,
      },
      update: {},
    });
    expect(old.content).not.toHaveProperty("reviews");
    for (const jobType of ["learning_state_analysis", "weak_point_analysis", "next_action_planning"] as const) {
      const result = await run(learner, jobType, { snapshotId: old.id });
      expect(result.snapshotId).toBe(old.id);
      expect(JSON.stringify(result.output)).not.toMatch(/slipping|due card|Reviews:/);
    }
  });
});
