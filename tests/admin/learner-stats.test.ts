import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { advanceClock, now, resetClock } from "@/server/clock";
import { callerAs } from "../helpers/auth";
import { createLearner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { readLearningState } from "@/server/jobs/snapshot";
import { knowledgeStats, masteryOf } from "@/server/job-types/shared/statistics";

/** The console's Learners page per learner: language, last activity, due and overdue cards, forgotten points, jobs and cost this month. */
describe("the Learners page's figures", () => {
  it("counts a learner's cards, forgotten points, jobs and cost, and shows their language", async () => {
    const admin = await createLearner({ role: "admin" });
    const learner = await createLearner();
    const me = learner.user.id;
    await getDb().user.update({ where: { id: me }, data: { locale: "zh-CN" } });
    const caller = callerAs(learner.user);
    const deck = await succeededJob(learner, "flashcard_generation", { count: 3 });
    await caller.review.addDeck({ jobId: deck.id });
    const [a, b] = (await caller.review.queue()).cards;
    await caller.review.rate({ cardId: a!.id, rating: "again", reps: 0 });
    await caller.review.suspend({ cardId: b!.id, suspended: true });
    const job = await getDb().aiRuntimeJob.findFirstOrThrow({ where: { userId: me } });
    await getDb().jobUsage.create({
      data: {
        jobId: job.id,
        attemptNo: 99,
        userId: me,
        jobType: "flashcard_generation",
        apiKeyMode: "platform_key",
        provider: "deepseek",
        promptTokens: 1_000_000,
        completionTokens: 0,
        outcome: "succeeded",
      },
    });
    try {
      advanceClock(2 * 86_400_000);
      const { items } = await callerAs(admin.user).admin.learners.list({ search: learner.user.email });
      expect(items).toHaveLength(1);
      const stats = items[0]!.stats!;
      // Two cards due (the one rated Again and the third; the suspended one is not), both more than a day late.
      expect(stats).toMatchObject({
        locale: "zh-CN",
        dueCards: 2,
        overdueCards: 2,
        forgottenPoints: 1,
      });
      // (Two days on may be next month, where nothing was spent yet.)
      const sameMonth = now().getUTCMonth() === new Date().getUTCMonth();
      expect(stats.jobsThisMonth).toBe(sameMonth ? 1 : 0);
      expect(stats.costThisMonth > 0).toBe(sameMonth);
      expect(stats.lastActiveAt).not.toBeNull();

      // Mastery per point is the analyses' number: masteryOf on the evidence her snapshot carries
      // (answers and reviews together), here with a point rated Again in Review.
      const snapshot = await readLearningState(getDb(), me, { type: "user", id: me });
      expect(snapshot.reviews?.knowledgePoints.some((r) => r.again > 0)).toBe(true);
      const expected = knowledgeStats(snapshot);
      const mastery = items[0]!.mastery!;
      expect(mastery.points).toHaveLength(expected.length);
      for (const k of expected) {
        const p = mastery.points.find((x) => x.knowledgePointId === k.kp.id)!;
        expect(p.mastery).toBe(k.mastery);
        expect(p.mastery).toBe(masteryOf(k.attempts, k.review));
        expect(p.evidence).toBe(k.evidence);
      }
      const reviewed = expected.find((k) => k.review && k.review.again > 0)!;
      // The review moved the figure away from the answers alone.
      expect(reviewed.mastery).not.toBe(reviewed.quizMastery);
      const lowest = Math.min(...expected.map((k) => k.mastery));
      expect(mastery.weakest!.mastery).toBe(lowest);
      const mean = expected.reduce((x, k) => x + k.mastery, 0) / expected.length;
      expect(mastery.mean).toBeCloseTo(mean, 3);
      expect(mastery.points.map((x) => x.mastery)).toEqual([...expected.map((k) => k.mastery)].sort((a, b) => a - b));
    } finally {
      resetClock();
    }
  });

  it("a row's payload is fixed whatever the learner holds: the five weakest points, a count, a link to the rest", async () => {
    const admin = await createLearner({ role: "admin" });
    const small = await createLearner();
    const big = await createLearner();
    const points = (userId: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        userId,
        title: `Point ${i} `.padEnd(200, "x"),
        description: "d".repeat(500),
      }));
    await getDb().knowledgePoint.createMany({ data: points(small.user.id, 3) });
    await getDb().knowledgePoint.createMany({ data: points(big.user.id, 3000) });
    const list = callerAs(admin.user).admin.learners.list;
    const row = async (email: string) => (await list({ search: email })).items[0]!;
    const held = async (userId: string) => getDb().knowledgePoint.count({ where: { userId } });
    const [few, many] = [await row(small.user.email), await row(big.user.email)];
    expect(few.mastery!.pointCount).toBe(await held(small.user.id));
    expect(few.mastery!.points).toHaveLength(Math.min(5, few.mastery!.pointCount));
    expect(many.mastery!.pointCount).toBe(await held(big.user.id));
    expect(many.mastery!.pointCount).toBeGreaterThanOrEqual(3000);
    expect(many.mastery!.points).toHaveLength(5);
    // 3,000 points of 700 bytes each, and her row is the size of a row of three.
    const size = (r: unknown) => JSON.stringify(r).length;
    expect(size(many)).toBeLessThan(size(few) + 1000);
  });

  it("sorts by a figure and filters by language, overdue cards and forgotten points, on the server", async () => {
    const admin = await createLearner({ role: "admin" });
    const tag = `sortcase${Date.now()}`;
    const make = async (label: string, locale: string) => {
      const l = await createLearner();
      await getDb().user.update({ where: { id: l.user.id }, data: { locale, name: `${tag} ${label}` } });
      return l;
    };
    await make("A", "en");
    const b = await make("B", "zh-CN");
    const c = await make("C", "zh-CN");
    // B: a deck, one card rated Again (a forgotten point). C: a deck with one card rated Easy, and a second job.
    await callerAs(b.user).review.addDeck({ jobId: (await succeededJob(b, "flashcard_generation", { count: 3 })).id });
    const [bCard] = (await callerAs(b.user).review.queue()).cards;
    await callerAs(b.user).review.rate({ cardId: bCard!.id, rating: "again", reps: 0 });
    await callerAs(c.user).review.addDeck({ jobId: (await succeededJob(c, "flashcard_generation", { count: 3 })).id });
    await succeededJob(c, "flashcard_generation", { count: 3 });
    const [cCard] = (await callerAs(c.user).review.queue()).cards;
    await callerAs(c.user).review.rate({ cardId: cCard!.id, rating: "easy", reps: 0 });
    const list = callerAs(admin.user).admin.learners.list;
    const names = async (input: Omit<Parameters<typeof list>[0], "search">) =>
      (await list({ search: tag, ...input })).items.map((l) => l.name!.slice(tag.length + 1));

    expect(await names({ sort: "jobs" })).toEqual(["C", "B", "A"]);
    expect(await names({ sort: "jobs", dir: "asc" })).toEqual(["A", "B", "C"]);
    try {
      advanceClock(2 * 86_400_000);
      expect(await names({ sort: "due" })).toEqual(["B", "C", "A"]);
      expect(await names({ sort: "overdue", dir: "asc" })).toEqual(["A", "C", "B"]);
      expect(await names({ sort: "forgotten" })).toEqual(["B", "C", "A"]);
      expect(await names({ language: "zh-CN", sort: "due" })).toEqual(["B", "C"]);
      expect(await names({ language: "en" })).toEqual(["A"]);
      expect(await names({ overdue: true, sort: "due" })).toEqual(["B", "C"]);
      expect(await names({ forgotten: true })).toEqual(["B"]);
      expect(await names({ forgotten: true, language: "en" })).toEqual([]);
      const page = await list({ search: tag, overdue: true, sort: "overdue", pageSize: 1, page: 2 });
      expect(page.total).toBe(2);
      expect(page.items.map((l) => l.name)).toEqual([`${tag} C`]);
    } finally {
      resetClock();
    }
    // A bad sort key or language is the caller's error (400), not the server's.
    await expect(list({ sort: "email" as never })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(list({ language: "fr" as never })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
