import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { OUTPUT_SCHEMA_VERSION } from "@/server/job-types";
import { advanceClock, now, resetClock } from "@/server/clock";
import { captureSnapshot, prepareSnapshot } from "@/server/jobs/snapshot";
import { checkOutput } from "@/server/jobs/quality";
import { snapshotContentSchema, type SnapshotContent } from "@/server/jobs/schemas";
import { analyse } from "@/server/providers/local";
import { getReviewQueue } from "@/server/review/cards";
import { buildPrompt } from "@/server/pipeline/prompts";
import type { LearningAnalysis } from "@/server/job-types/learning-state-analysis";
import type { WeakPoints } from "@/server/job-types/weak-point-analysis";
import type { NextActions } from "@/server/job-types/next-action-planning";
import { LOW_RECALL } from "@/server/job-types/shared/statistics";
import type { Locale } from "@/server/i18n/locales";
import { holdClockAtNoon, learnerWithCards, rateAll } from "./evidence-setup";

/** The review log as evidence: the snapshot carries it, and the analyses change with the reviews. */
beforeEach(() => holdClockAtNoon());
afterEach(() => resetClock());

const DAY = 86_400_000;
const userTarget = (id: string) => ({ type: "user" as const, id });

function analyses(snapshot: SnapshotContent, locale: Locale) {
  const at = now();
  const ok = (jobType: Parameters<typeof analyse>[0], out: unknown, params: Record<string, unknown>) =>
    expect(
      checkOutput(jobType, OUTPUT_SCHEMA_VERSION, out, {
        knowledgePointIds: new Set(snapshot.knowledgePoints.map((k) => k.id)),
        params,
        snapshot,
      }),
    ).toMatchObject({ ok: true });
  const state = analyse("learning_state_analysis", snapshot, {}, at, locale) as LearningAnalysis;
  const weak = analyse("weak_point_analysis", snapshot, {}, at, locale) as WeakPoints;
  const plan = analyse("next_action_planning", snapshot, { timeBudgetMinutes: 60 }, at, locale) as NextActions;
  ok("learning_state_analysis", state, {});
  ok("weak_point_analysis", weak, {});
  ok("next_action_planning", plan, { timeBudgetMinutes: 60 });
  return { state, weak, plan };
}

describe("the snapshot carries the review log per knowledge point", () => {
  it("counts cards, due cards, reviews, Again ratings and recall; a new review is a new snapshot, unchanged reviews share one", async () => {
    const { learner, light, calvin, chlorophyll } = await learnerWithCards();
    const me = learner.user.id;
    const db = getDb();
    const first = await captureSnapshot(db, me, userTarget(me));
    expect(await captureSnapshot(db, me, userTarget(me))).toEqual(first);
    const before = (await prepareSnapshot(db, me, userTarget(me))).content;
    expect(snapshotContentSchema.parse(before)).toEqual(before);
    const endOfDay = new Date(Math.floor(now().getTime() / DAY) * DAY + DAY).toISOString();
    expect(before.reviews!.asOf).toBe(endOfDay);
    const unreviewed = { cards: 2, dueCards: 2, reviews: 0, again: 0, forgotten: 0, lapses: 0 };
    expect(before.reviews!.knowledgePoints).toEqual(
      [light, calvin]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((kp) => ({ knowledgePointId: kp.id, ...unreviewed, retrievability: null, lastReviewedAt: null })),
    );
    // A point without cards has no entry.
    expect(before.reviews!.knowledgePoints.map((r) => r.knowledgePointId)).not.toContain(chlorophyll.id);

    await rateAll(me, light.id, "again");
    await rateAll(me, calvin.id, "easy");
    // Cards failed a moment ago come back in minutes: the Review view does not show them as due
    // yet, and neither does the snapshot (one definition of "due", server/review/due.ts).
    const ofNow = async (id: string) =>
      (await prepareSnapshot(db, me, userTarget(me))).content.reviews!.knowledgePoints.find(
        (r) => r.knowledgePointId === id,
      )!;
    expect((await getReviewQueue(me)).due.total).toBe(0);
    expect((await ofNow(light.id)).dueCards).toBe(0);
    advanceClock(10 * 60_000);
    expect((await getReviewQueue(me)).due.total).toBe(2);
    expect((await ofNow(light.id)).dueCards).toBe(2);
    const second = await captureSnapshot(db, me, userTarget(me));
    expect(second.contentHash).not.toBe(first.contentHash);
    expect(await captureSnapshot(db, me, userTarget(me))).toEqual(second);
    const after = (await prepareSnapshot(db, me, userTarget(me))).content;
    const of = (s: SnapshotContent, id: string) => s.reviews!.knowledgePoints.find((r) => r.knowledgePointId === id)!;
    expect(of(after, light.id)).toMatchObject({ cards: 2, dueCards: 2, reviews: 2, again: 2, forgotten: 2 });
    expect(of(after, calvin.id)).toMatchObject({ cards: 2, dueCards: 0, reviews: 2, again: 0, forgotten: 0 });
    const lastLog = await db.reviewLog.findFirstOrThrow({
      where: { card: { knowledgePointId: calvin.id } },
      orderBy: { reviewedAt: "desc" },
    });
    expect(of(after, calvin.id).lastReviewedAt).toBe(lastLog.reviewedAt.toISOString());

    // The evidence of a material or a knowledge point covers only its points.
    const point = await prepareSnapshot(db, me, { type: "knowledge_point", id: calvin.id });
    expect(point.content.reviews!.knowledgePoints).toEqual([of(after, calvin.id)]);
    const none = await prepareSnapshot(db, me, { type: "knowledge_point", id: chlorophyll.id });
    expect(none.content).not.toHaveProperty("reviews");

    // A day on, nothing reviewed: a new day's evidence, and the failed cards' predicted recall has dropped.
    advanceClock(DAY);
    const tomorrow = (await prepareSnapshot(db, me, userTarget(me))).content;
    expect(of(tomorrow, light.id).retrievability!).toBeLessThan(LOW_RECALL);
    expect(of(tomorrow, calvin.id).retrievability!).toBeGreaterThan(0.9);
    expect(of(tomorrow, calvin.id).dueCards).toBe(0);
  });
});

describe("the analyses use it", () => {
  it.each([
    [
      "en",
      "slipping in reviews",
      "Review the 2 due cards of Light reactions",
      "2 cards forgotten at the latest review",
    ],
    ["zh-CN", "复习中正在遗忘", "复习“Light reactions”的 2 张到期卡片", "2 张卡片在最近一次复习时忘记了"],
  ] as const)(
    "%s: after Again on one point's cards and Easy on another's, the first is a risk, a weak point and reviewed first",
    async (locale, slipping, reviewLight, forgottenLine) => {
      const { learner, light, calvin } = await learnerWithCards();
      const me = learner.user.id;
      const db = getDb();
      const before = analyses((await prepareSnapshot(db, me, userTarget(me))).content, locale);
      await rateAll(me, light.id, "again");
      await rateAll(me, calvin.id, "easy");
      // The failed cards' learning step: due in the Review view, so due in the snapshot.
      advanceClock(10 * 60_000);
      const after = analyses((await prepareSnapshot(db, me, userTarget(me))).content, locale);

      // Learning state: "Light reactions" leaves the strengths for the risks; reviews add confidence.
      const mentions = (lines: { text: string }[], title: string) => lines.some((l) => l.text.startsWith(title));
      expect(mentions(before.state.strengths, "Light reactions")).toBe(true);
      expect(before.state.risks.some((r) => r.text.includes(slipping))).toBe(false);
      expect(mentions(after.state.strengths, "Light reactions")).toBe(false);
      expect(mentions(after.state.strengths, "Calvin cycle")).toBe(true);
      expect(after.state.risks[0]!.text).toContain("Light reactions");
      expect(after.state.risks[0]!.text).toContain(slipping);
      const confidence = (s: LearningAnalysis, id: string) => s.knowledgePoints.find((k) => k.knowledgePointId === id)!;
      expect(confidence(before.state, calvin.id).confidence).toBe(0.5);
      expect(confidence(after.state, calvin.id).confidence).toBe(0.625);
      expect(after.state.summary).not.toBe(before.state.summary);

      // Weak points: none before; then the forgotten point, one level more severe than its answers say.
      expect(before.weak.weakPoints).toEqual([]);
      expect(after.weak.weakPoints).toHaveLength(1);
      const weak = after.weak.weakPoints[0]!;
      expect(weak).toMatchObject({ knowledgePointId: light.id, severity: "medium" });
      expect(weak.evidence).toContain(forgottenLine);
      expect(weak.suggestedReview).toMatch(
        locale === "en" ? /^2 cards of it are due for review\./ : /^它有 2 张卡片到期待复习。/,
      );

      // Next actions: both points' due cards before; then only the forgotten point's, first and urgent.
      const dueReviews = (p: NextActions) =>
        p.actions.filter((a) => a.actionType === "review" && a.target.type === "knowledge_point");
      expect(
        dueReviews(before.plan)
          .map((a) => a.target.id)
          .sort(),
      ).toEqual([light.id, calvin.id].sort());
      expect(after.plan.actions[0]).toMatchObject({
        actionType: "review",
        target: { type: "knowledge_point", id: light.id },
        title: reviewLight,
        priority: 1,
        estimatedMinutes: 5,
      });
      expect(after.plan.actions.some((a) => a.target.id === calvin.id && a.actionType === "review")).toBe(false);
    },
  );

  it("a snapshot without review evidence (captured before it existed) still analyses, on answers alone", async () => {
    const { learner } = await learnerWithCards();
    const me = learner.user.id;
    const { reviews, ...old } = (await prepareSnapshot(getDb(), me, userTarget(me))).content;
    expect(reviews).toBeDefined();
    expect(snapshotContentSchema.parse(old)).toEqual(old);
    const out = analyses(old, "en");
    // Nothing of the review log, and the points' confidence is their answers' alone.
    expect(JSON.stringify(out)).not.toMatch(/slipping|due card|Reviews:|predicted recall/);
    expect(out.state.knowledgePoints.map((k) => k.confidence).sort()).toEqual([0, 0.5, 0.5]);
    expect(out.plan.actions.every((a) => !a.title.includes("due cards"))).toBe(true);
  });

  it("the DeepSeek prompt carries the evidence as data and tells the model to use it", async () => {
    const { learner, light } = await learnerWithCards();
    const me = learner.user.id;
    await rateAll(me, light.id, "again");
    const snapshot = (await prepareSnapshot(getDb(), me, userTarget(me))).content;
    for (const jobType of ["learning_state_analysis", "weak_point_analysis", "next_action_planning"] as const) {
      const prompt = buildPrompt({ jobType, snapshot, params: { timeBudgetMinutes: 60 }, asOf: now() });
      const [data, task] = prompt.user.split("\nTask: ");
      expect(data).toContain(`"forgotten":2`);
      expect(task).toContain("`reviews`");
      expect(prompt.system).not.toContain("forgotten");
    }
  });
});
