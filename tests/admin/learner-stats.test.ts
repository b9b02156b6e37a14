import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { advanceClock, now, resetClock } from "@/server/clock";
import { callerAs } from "../helpers/auth";
import { createLearner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";

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
    } finally {
      resetClock();
    }
  });
});
