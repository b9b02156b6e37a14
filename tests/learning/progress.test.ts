import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { setConsent } from "@/server/jobs/consent";
import { callerAs } from "../helpers/auth";
import { createLearner, createTestJob, runtimeKey, uid, type Learner } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { succeededJob } from "../helpers/finished-jobs";
import { validOutput } from "../helpers/outputs";

/** The learner's side over time: keyset history, mastery across analyses, saved next-step ticks. */
let ada: Learner;
let bob: Learner;
const as = (l: Learner) => callerAs(l.user);

beforeAll(async () => {
  [ada, bob] = await Promise.all([createLearner(), createLearner()]);
});
afterAll(async () => {
  for (const l of [ada, bob]) await setConsent(l.user.id, false, { type: "learner", id: l.user.id });
});

describe("history", () => {
  it("pages through every job of the learner, newest first, without gaps or repeats, even while new jobs arrive", async () => {
    const learner = await createLearner();
    const made: string[] = [];
    for (let i = 0; i < 45; i++) made.push((await createTestJob(learner, "weak_point_analysis")).id);
    await createTestJob(bob, "weak_point_analysis"); // someone else's: never in the pages
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await as(learner).progress.history({ cursor, limit: 20 });
      seen.push(...page.items.map((j) => j.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
      // A job that arrives mid-way is newer than every page already read: it shifts nothing.
      if (pages === 1) await createTestJob(learner, "weak_point_analysis");
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());
    await setConsent(learner.user.id, false, { type: "learner", id: learner.user.id });
  });

  it("starts after the first page the learner page already shows, from that page's last row", async () => {
    const learner = await createLearner();
    for (let i = 0; i < 5; i++) await createTestJob(learner, "weak_point_analysis");
    const first = await as(learner).jobs.list({ page: 1, pageSize: 3 });
    const last = first.items.at(-1)!;
    const rest = await as(learner).progress.history({ cursor: `${last.createdAt}|${last.id}`, limit: 20 });
    expect(rest.items).toHaveLength(2);
    expect(rest.nextCursor).toBeNull();
    await setConsent(learner.user.id, false, { type: "learner", id: learner.user.id });
  });

  it("refuses a malformed cursor with 400 (never a 500)", async () => {
    for (const cursor of ["nope", "|x", "2026-13-45|id", "\u0000|\ud800"])
      await expect(as(ada).progress.history({ cursor, limit: 5 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("mastery over time", () => {
  it("draws one series per topic from the learner's past learning-state analyses, oldest first", async () => {
    const learner = await createLearner();
    const kpIds = learner.knowledgePoints.map((k) => k.id);
    const analysis = (m: number[]) => {
      const out = validOutput("learning_state_analysis", kpIds) as {
        overallMastery: number;
        knowledgePoints: { mastery: number }[];
      };
      out.knowledgePoints.forEach((k, i) => (k.mastery = m[i]!));
      out.overallMastery = m.reduce((a, b) => a + b, 0) / m.length;
      return out;
    };
    await succeededJob(learner, "learning_state_analysis", {}, analysis([0.2, 0.5, 0.1]));
    await succeededJob(learner, "learning_state_analysis", {}, analysis([0.4, 0.6, 0.3]));
    await succeededJob(learner, "weak_point_analysis"); // other types are not mastery
    await succeededJob(learner, "learning_state_analysis", {}, analysis([0.7, 0.5, 0.6]));
    await succeededJob(bob, "learning_state_analysis"); // another learner's: not in this chart

    const m = await as(learner).progress.mastery();
    expect(m.analyses).toBe(3);
    expect(m.topics).toHaveLength(3);
    const first = m.topics.find((t) => t.knowledgePointId === kpIds[0])!;
    expect(first.points.map((p) => p.mastery)).toEqual([0.2, 0.4, 0.7]);
    expect(m.overall.map((p) => Number(p.mastery.toFixed(3)))).toEqual([0.267, 0.433, 0.6]);
    const times = first.points.map((p) => new Date(p.at).getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it("keeps drawing the results stored as v1 next to the v2 ones", async () => {
    const learner = await createLearner();
    const kpIds = learner.knowledgePoints.map((k) => k.id);
    const rt = runtime(await runtimeKey(), uid("inst"));
    const v2 = validOutput("learning_state_analysis", kpIds) as { knowledgePoints: { mastery: number }[] };
    const { strongestKnowledgePointId: _none, ...rest } = v2 as typeof v2 & { strongestKnowledgePointId: null };
    const v1 = { ...rest, strengths: ["Light reactions"], risks: ["Calvin cycle"] };
    const job = await createTestJob(learner, "learning_state_analysis");
    expect((await rt.lock(job.id)).status).toBe(200);
    expect((await rt.result(job.id, 1, v1, { outputSchemaVersion: "v1" })).status).toBe(200);
    await succeededJob(learner, "learning_state_analysis", {}, v2);
    const m = await as(learner).progress.mastery();
    expect(m.analyses).toBe(2);
    expect(m.topics[0]!.points.map((p) => p.mastery)).toEqual([0.5, 0.5]);
  });

  it("is empty for a learner with no analyses yet", async () => {
    const learner = await createLearner();
    expect(await as(learner).progress.mastery()).toEqual({ analyses: 0, unverified: 0, overall: [], topics: [] });
  });
});

describe("next-step ticks", () => {
  it("are saved per step, read back, removed, and repeating one changes nothing", async () => {
    const job = await succeededJob(ada, "next_action_planning");
    expect(await as(ada).progress.ticks({ jobId: job.id })).toEqual({ jobId: job.id, done: [] });
    await as(ada).progress.setTick({ jobId: job.id, actionIndex: 0, done: true });
    expect((await as(ada).progress.setTick({ jobId: job.id, actionIndex: 0, done: true })).done).toEqual([0]);
    expect((await as(ada).progress.ticks({ jobId: job.id })).done).toEqual([0]);
    expect((await as(ada).progress.setTick({ jobId: job.id, actionIndex: 0, done: false })).done).toEqual([]);
  });

  it("two tabs ticking the same step at once leave one tick", async () => {
    const job = await succeededJob(ada, "next_action_planning");
    await Promise.all(
      Array.from({ length: 8 }, () => as(ada).progress.setTick({ jobId: job.id, actionIndex: 0, done: true })),
    );
    expect(await getDb().nextActionTick.count({ where: { jobId: job.id } })).toBe(1);
  });

  it("refuses a step the plan does not have, a job that is not a plan, and another learner's plan (not found)", async () => {
    const plan = await succeededJob(ada, "next_action_planning");
    await expect(as(ada).progress.setTick({ jobId: plan.id, actionIndex: 5, done: true })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    const quiz = await succeededJob(ada, "quiz_generation", { count: 1 });
    await expect(as(ada).progress.ticks({ jobId: quiz.id })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(bob).progress.setTick({ jobId: plan.id, actionIndex: 0, done: true })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(as(bob).progress.ticks({ jobId: plan.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const pending = await createTestJob(ada, "next_action_planning");
    await expect(as(ada).progress.ticks({ jobId: pending.id })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await getDb().nextActionTick.count({ where: { jobId: plan.id } })).toBe(0);
  });
});
