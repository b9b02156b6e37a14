import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { now, resetClock } from "@/server/clock";
import { cardFacts, pointFacts } from "@/server/learner-model";
import { prepareSnapshot } from "@/server/jobs/snapshot";
import { localMidnight } from "@/server/review/day";
import { firstStepOf, todayFor } from "@/server/review/today";
import { digestMessage } from "@/server/notifications/digest-text";
import { getMasteryHistory } from "@/server/learning/mastery-history";
import { analyseLearningState } from "@/server/job-types/learning-state-analysis/analyse";
import { analyseWeakPoints } from "@/server/job-types/weak-point-analysis/analyse";
import { evidenceFindings } from "@/server/job-types/evidence";
import type { SnapshotContent } from "@/server/job-types/fields";
import { callerAs } from "../helpers/auth";
import { createLearner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";

/** The learner model (server/learner-model) and every reader of it agreeing, on a real database. */
afterEach(() => resetClock());

const ZONE = "Asia/Shanghai";

/**
 * Eight new cards of one deck: one suspended, one buried, two falling due later in her day, one
 * tomorrow, three due now; her time zone stored (the snapshot reads it) and sent (the views).
 */
async function learnersDay() {
  const learner = await createLearner();
  const caller = callerAs(learner.user);
  const deck = await succeededJob(learner, "flashcard_generation", { count: 8 });
  await caller.review.addDeck({ jobId: deck.id });
  await getDb().user.update({ where: { id: learner.user.id }, data: { timeZone: ZONE } });
  const cards = await getDb().reviewCard.findMany({
    where: { userId: learner.user.id },
    orderBy: { itemIndex: "asc" },
    select: { id: true },
  });
  const at = now();
  const endOfDay = localMidnight(at, ZONE, 1);
  const laterToday = new Date((at.getTime() + endOfDay.getTime()) / 2);
  await caller.review.suspend({ cardId: cards[0]!.id, suspended: true });
  await caller.review.bury({ cardId: cards[1]!.id, buried: true, timeZone: ZONE });
  await getDb().reviewCard.updateMany({
    where: { id: { in: [cards[2]!.id, cards[3]!.id] } },
    data: { due: laterToday },
  });
  await getDb().reviewCard.update({
    where: { id: cards[4]!.id },
    data: { due: new Date(endOfDay.getTime() + 3_600_000) },
  });
  return { learner, caller, cards };
}

/** Every view's counts at once: the model, Review, the top line, the digest, the snapshot and the summary. */
async function everyCount(learner: Awaited<ReturnType<typeof createLearner>>) {
  const caller = callerAs(learner.user);
  const [facts, queue, today, snapshot] = await Promise.all([
    cardFacts(learner.user.id, { at: now(), timeZone: ZONE }),
    caller.review.queue({ timeZone: ZONE }),
    caller.review.today({ timeZone: ZONE }),
    prepareSnapshot(getDb(), learner.user.id, { type: "user", id: learner.user.id }),
  ]);
  const todayServer = await todayFor(learner.user.id, ZONE);
  const mail = digestMessage("zh-CN", {
    name: "她",
    dueNow: todayServer.now,
    laterToday: todayServer.laterToday,
    firstStep: null,
    pageUrl: "http://x/",
    unsubscribeUrl: "http://x/u",
  });
  const summary = analyseLearningState(snapshot.content, now(), "zh-CN").summary;
  return { facts, queue, today, snapshot: snapshot.content, mail, summary };
}

describe("the learner model's day", () => {
  it("gives Review, the top line, the digest, the snapshot and the summary one count, labelled now and later today", async () => {
    const { learner, caller } = await learnersDay();
    await caller.review.setLimits({ newPerDay: 4, reviewsPerDay: 200 });

    let c = await everyCount(learner);
    expect(c.facts.now.total).toBe(3);
    expect(c.facts.laterToday).toBe(1); // two fall due later today, the limit (4) leaves room for one
    expect(c.facts.setAside).toEqual({ suspended: 1, buried: 1 });
    expect(c.queue.today.total).toBe(3);
    expect(c.queue.laterToday).toBe(1);
    expect(c.queue.cards).toHaveLength(3);
    expect(c.queue.setAside).toEqual({ suspended: 1, buried: 1 });
    expect(c.today).toMatchObject({ now: 3, laterToday: 1 });
    expect(c.mail.text).toContain("今天要复习：现在 3 张 · 今天稍后 1 张。");
    expect(c.snapshot.reviews?.today).toEqual({ timeZone: ZONE, now: 3, laterToday: 1, heldBack: 0 });
    // Per point, the due cards leave out the suspended and the buried one.
    expect(c.snapshot.reviews!.knowledgePoints.reduce((n, r) => n + r.dueCards, 0)).toBe(3);
    expect(c.summary).toContain("现在 3 张 · 今天稍后 1 张");

    // A tighter limit: two now, none later, one due now held back — said, not hidden.
    await caller.review.setLimits({ newPerDay: 2, reviewsPerDay: 200 });
    c = await everyCount(learner);
    expect([c.facts.now.total, c.queue.today.total, c.today.now]).toEqual([2, 2, 2]);
    expect([c.facts.laterToday, c.queue.laterToday, c.today.laterToday]).toEqual([0, 0, 0]);
    expect(c.queue.due.total - c.queue.today.total).toBe(1);
    expect(c.snapshot.reviews?.today).toEqual({ timeZone: ZONE, now: 2, laterToday: 0, heldBack: 1 });
    expect(c.summary).toContain("现在 2 张 · 今天稍后 0 张（另有 1 张现在到期，超出今天的上限）");

    // One rated Easy (days away): every view reads one fewer now, at once.
    await caller.review.rate({ cardId: c.queue.cards[0]!.id, rating: "easy", reps: 0 });
    c = await everyCount(learner);
    expect([c.facts.now.total, c.queue.today.total, c.today.now, c.snapshot.reviews?.today?.now]).toEqual([1, 1, 1, 1]);
    expect(c.mail.text).toContain("现在 1 张 · 今天稍后 0 张");
  });

  it("counts a suspended card as due nowhere, and a card again once it is unsuspended", async () => {
    const { learner, caller, cards } = await learnersDay();
    const before = await everyCount(learner);
    await caller.review.suspend({ cardId: cards[0]!.id, suspended: false });
    const after = await everyCount(learner);
    expect(after.facts.now.total).toBe(before.facts.now.total + 1);
    expect(after.today.now).toBe(after.facts.now.total);
    expect(after.snapshot.reviews!.knowledgePoints.reduce((n, r) => n + r.dueCards, 0)).toBe(after.facts.dueNow.total);
  });
});

/** A snapshot of one learner with two points, built by hand: the pure half of the model. */
function snapshotOf(
  points: {
    id: string;
    answers: boolean[];
    review?: { cards: number; reviews: number; again: number; forgotten: number; retrievability: number | null };
  }[],
): SnapshotContent {
  return {
    version: 1,
    learner: { id: "u1", name: "她" },
    target: { type: "user", id: "u1", title: "她" },
    materials: [{ id: "m1", title: "浮力", content: "物体浸在液体中受到向上的浮力。" }],
    knowledgePoints: points.map((p) => ({ id: p.id, title: p.id, description: "", materialId: "m1" })),
    quizAttempts: points.flatMap((p) =>
      p.answers.map((correct, i) => ({
        knowledgePointId: p.id,
        question: `Q${i}`,
        correct,
        answeredAt: new Date(Date.UTC(2026, 11, 1, 10 - i)).toISOString(),
      })),
    ),
    studySessions: [],
    reviews: {
      asOf: new Date(Date.UTC(2026, 11, 2)).toISOString(),
      knowledgePoints: points
        .filter((p) => p.review)
        .map((p) => ({
          knowledgePointId: p.id,
          dueCards: 0,
          lapses: 0,
          lastReviewedAt: new Date(Date.UTC(2026, 11, 1)).toISOString(),
          ...p.review!,
        })),
    },
  };
}

describe("the learner model's points", () => {
  it("gives one band per point that the learning state and the weak points both obey", () => {
    // 浮力: strong by many good reviews, but its two newest answers wrong. 压强: known by answers alone.
    const snapshot = snapshotOf([
      {
        id: "kp_fuli",
        answers: [false, false, true, true, true],
        review: { cards: 4, reviews: 20, again: 0, forgotten: 0, retrievability: 0.97 },
      },
      { id: "kp_yaqiang", answers: [true, true, true, true], review: undefined },
    ]);
    const facts = new Map(pointFacts(snapshot).map((f) => [f.knowledgePointId, f]));
    expect(facts.get("kp_fuli")!.mastery).toBeGreaterThanOrEqual(0.8);
    expect(facts.get("kp_fuli")!.band).toBe("weak");
    expect(facts.get("kp_yaqiang")!.band).toBe("strong");
    for (const locale of ["zh-CN", "en"] as const) {
      const state = analyseLearningState(snapshot, new Date(Date.UTC(2026, 11, 2)), locale);
      const weak = analyseWeakPoints(snapshot, locale);
      const strengths = state.strengths.map((s) => (typeof s === "string" ? null : s.knowledgePointId));
      const weakIds = weak.weakPoints.map((w) => w.knowledgePointId);
      expect(strengths).toEqual(["kp_yaqiang"]);
      expect(weakIds).toEqual(["kp_fuli"]);
      expect(state.risks.some((r) => typeof r !== "string" && r.knowledgePointId === "kp_fuli")).toBe(true);
      expect(state.strongestKnowledgePointId).not.toBe("kp_fuli");
      // And the evidence rules accept both, reading the same facts.
      const ctx = { snapshot, locale, version: "2" };
      expect(evidenceFindings("learning_state_analysis", state, ctx)).toEqual([]);
      expect(evidenceFindings("weak_point_analysis", weak, { ...ctx, version: "1" })).toEqual([]);
    }
  });

  it("counts a card forgotten an hour ago in the summary's retention, never 100 %", () => {
    const snapshot = snapshotOf([
      { id: "kp_a", answers: [], review: { cards: 2, reviews: 3, again: 1, forgotten: 1, retrievability: 1 } },
      { id: "kp_b", answers: [], review: { cards: 2, reviews: 2, again: 0, forgotten: 0, retrievability: 1 } },
    ]);
    const summary = analyseLearningState(snapshot, new Date(Date.UTC(2026, 11, 2)), "zh-CN").summary;
    expect(summary).toContain("预计记忆保持率 75%");
    expect(summary).not.toContain("预计记忆保持率 100%");
  });
});

describe("the top line's first step", () => {
  it("is the plan's first step by priority, not by stored order, and skips ticked steps", () => {
    const actions = [
      { title: "Rest", priority: 5 },
      { title: "Review 浮力", priority: 1 },
      { title: "Practise 压强", priority: 2 },
    ];
    expect(firstStepOf(actions, new Set())?.index).toBe(1);
    expect(firstStepOf(actions, new Set([1]))?.index).toBe(2);
    expect(firstStepOf(actions, new Set([0, 1, 2]))).toBeNull();
  });

  it("is flagged when the plan was stored degraded, in the top line and the digest", async () => {
    const learner = await createLearner();
    const plan = await succeededJob(learner, "next_action_planning");
    expect((await todayFor(learner.user.id, "UTC")).firstStep?.degraded).toBe(false);
    await getDb().aiRuntimeResult.updateMany({ where: { jobId: plan.id }, data: { degraded: true } });
    const { firstStep } = await callerAs(learner.user).review.today({ timeZone: "UTC" });
    expect(firstStep?.degraded).toBe(true);
    const mail = digestMessage("en", {
      name: "L",
      dueNow: 0,
      laterToday: 0,
      firstStep,
      pageUrl: "http://x/",
      unsubscribeUrl: "http://x/u",
    });
    expect(mail.text).toContain("Your plan's first step (unverified:");
    expect(
      digestMessage("zh-CN", {
        ...mail,
        name: "L",
        dueNow: 0,
        laterToday: 0,
        firstStep,
        pageUrl: "",
        unsubscribeUrl: "",
      }).text,
    ).toContain("（未核实：");
  });
});

describe("the mastery chart", () => {
  it("flags every point of an analysis stored degraded, and counts them", async () => {
    const learner = await createLearner();
    const first = await succeededJob(learner, "learning_state_analysis");
    const second = await succeededJob(learner, "learning_state_analysis");
    await getDb().aiRuntimeResult.updateMany({ where: { jobId: first.id }, data: { degraded: false } });
    await getDb().aiRuntimeResult.updateMany({ where: { jobId: second.id }, data: { degraded: true } });
    const history = await getMasteryHistory(learner.user.id);
    expect(history.analyses).toBe(2);
    expect(history.unverified).toBe(1);
    expect(history.overall.map((p) => [p.jobId, p.degraded])).toEqual([
      [first.id, false],
      [second.id, true],
    ]);
    for (const topic of history.topics)
      expect(topic.points.map((p) => p.degraded)).toEqual(topic.points.map((p) => p.jobId === second.id));
  });
});
