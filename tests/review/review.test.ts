import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { advanceClock, resetClock } from "@/server/clock";
import { exportLearnerData } from "@/server/learners/export";
import { eraseLearner } from "@/server/learners/erase";
import { callerAs } from "../helpers/auth";
import { createLearner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { codeOf } from "../helpers/trpc-code";

/** Spaced repetition (server/review) through the learner's procedures, on a real database. */
afterEach(() => resetClock());

const MINUTE = 60_000;
const DAY = 86_400_000;

async function learnerWithDeck(count = 3) {
  const learner = await createLearner();
  const deck = await succeededJob(learner, "flashcard_generation", { count });
  const caller = callerAs(learner.user);
  await caller.review.addDeck({ jobId: deck.id });
  return { learner, deck, caller };
}

describe("the review queue", () => {
  it("asks before a generated deck joins; once added, its cards are in once, due now, with their knowledge point", async () => {
    const learner = await createLearner();
    const deck = await succeededJob(learner, "flashcard_generation", { count: 3 });
    const caller = callerAs(learner.user);
    const asked = await caller.review.queue();
    expect(asked.due.total).toBe(0);
    expect(asked.pendingDecks).toEqual([expect.objectContaining({ jobId: deck.id, cards: 3 })]);
    // Two tabs answer at once: the cards are added once.
    const answers = await Promise.all([
      caller.review.addDeck({ jobId: deck.id }),
      caller.review.addDeck({ jobId: deck.id }),
    ]);
    expect(answers).toEqual([answers[0], answers[0]]);
    expect(answers[0]).toMatchObject({ decision: "added", added: 3, updated: 0, skipped: 0 });
    const first = await caller.review.queue();
    expect(first.pendingDecks).toEqual([]);
    expect(first.due).toEqual({ flashcards: 3, questions: 0, total: 3 });
    expect(first.cards.map((c) => c.front)).toEqual(["Front 1", "Front 2", "Front 3"]);
    expect(first.cards[0]).toMatchObject({
      kind: "flashcard",
      back: "Back",
      reps: 0,
      knowledgePointTitle: "Light reactions",
    });
    // Read again (and concurrently): no card twice.
    await Promise.all([caller.review.queue(), caller.review.queue()]);
    expect(await getDb().reviewCard.count({ where: { userId: learner.user.id, sourceJobId: deck.id } })).toBe(3);
  });

  it("puts the quiz questions the learner got wrong in it, not the right ones, and a second wrong play adds nothing", async () => {
    const learner = await createLearner();
    const caller = callerAs(learner.user);
    const quiz = await succeededJob(learner, "quiz_generation", { count: 3 });
    const answers = [
      { index: 0, response: "B" },
      { index: 1, response: "A" },
      { index: 2, response: "C" },
    ];
    await caller.quiz.submit({ jobId: quiz.id, answers });
    await caller.quiz.submit({ jobId: quiz.id, answers });
    const q = await caller.review.queue();
    expect(q.due).toEqual({ flashcards: 0, questions: 2, total: 2 });
    expect(q.cards.map((c) => c.front)).toEqual(["Question 2?\n· A\n· B\n· C", "Question 3?\n· A\n· B\n· C"]);
    expect(q.cards[0]!.back).toBe("B\n\nBecause B.");
  });

  it("another learner's card cannot be rated", async () => {
    const { caller } = await learnerWithDeck(1);
    const other = await createLearner();
    const [card] = (await caller.review.queue()).cards;
    expect(await codeOf(callerAs(other.user).review.rate({ cardId: card!.id, rating: "good", reps: 0 }))).toBe(
      "NOT_FOUND",
    );
    expect(await getDb().reviewLog.count({ where: { cardId: card!.id } })).toBe(0);
  });
});

describe("rating a card (FSRS)", () => {
  it("Good schedules it later, Again brings it back sooner; the log keeps each rating", async () => {
    const { caller } = await learnerWithDeck(2);
    const [a, b] = (await caller.review.queue()).cards;
    const good = await caller.review.rate({ cardId: a!.id, rating: "good", reps: 0 });
    const again = await caller.review.rate({ cardId: b!.id, rating: "again", reps: 0 });
    expect(new Date(good.due).getTime()).toBeGreaterThan(new Date(again.due).getTime());
    expect((await caller.review.queue()).due.total).toBe(0);

    // A day on, both are due again; Good then Easy moves the first card days ahead.
    advanceClock(DAY);
    const later = await caller.review.queue();
    expect(later.due.total).toBe(2);
    const easy = await caller.review.rate({ cardId: a!.id, rating: "easy", reps: good.reps });
    expect(new Date(easy.due).getTime() - Date.now()).toBeGreaterThan(3 * DAY);
    const logs = await getDb().reviewLog.findMany({ where: { cardId: a!.id }, orderBy: { reviewedAt: "asc" } });
    expect(logs.map((l) => l.rating)).toEqual([3, 4]);
    expect(logs[1]!.due.toISOString()).toBe(easy.due);
  });

  it("the page's top line counts what the daily limits still allow, as the Review does", async () => {
    const { caller } = await learnerWithDeck(5);
    await caller.review.setLimits({ newPerDay: 2, reviewsPerDay: 200 });
    const queue = await caller.review.queue({ timeZone: "UTC" });
    expect(queue.due.total).toBe(5);
    expect(queue.today.total).toBe(2);
    expect((await caller.review.today({ timeZone: "UTC" })).now).toBe(2);
    // One new card rated Easy (days away): one new card left today, on both.
    await caller.review.rate({ cardId: queue.cards[0]!.id, rating: "easy", reps: 0 });
    expect((await caller.review.queue({ timeZone: "UTC" })).today.total).toBe(1);
    expect((await caller.review.today({ timeZone: "UTC" })).now).toBe(1);
  });

  it("a new card rated Again leaves the queue for its one-minute step, then comes back after the cards due before it", async () => {
    const { caller } = await learnerWithDeck(3);
    const [a, b, c] = (await caller.review.queue()).cards;
    const again = await caller.review.rate({ cardId: a!.id, rating: "again", reps: 0 });
    const [log] = await getDb().reviewLog.findMany({ where: { cardId: a!.id } });
    expect(new Date(again.due).getTime() - log!.reviewedAt.getTime()).toBe(MINUTE);
    const right = await caller.review.queue();
    expect(right.cards.map((x) => x.id)).toEqual([b!.id, c!.id]);
    expect(right.nextDueAt).toBe(again.due);

    advanceClock(MINUTE);
    const after = await caller.review.queue();
    expect(after.cards.map((x) => [x.id, x.reps])).toEqual([
      [b!.id, 0],
      [c!.id, 0],
      [a!.id, 1],
    ]);
  });

  it("a card rated meanwhile is REVIEW_ALREADY_RATED; of two racing ratings exactly one counts", async () => {
    const { caller } = await learnerWithDeck(1);
    const [card] = (await caller.review.queue()).cards;
    const results = await Promise.allSettled([
      caller.review.rate({ cardId: card!.id, rating: "good", reps: 0 }),
      caller.review.rate({ cardId: card!.id, rating: "again", reps: 0 }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason.cause?.code ?? refused.reason.code).toMatch(/REVIEW_ALREADY_RATED|CONFLICT/);
    expect(await getDb().reviewLog.count({ where: { cardId: card!.id } })).toBe(1);
    expect((await getDb().reviewCard.findUniqueOrThrow({ where: { id: card!.id } })).reps).toBe(1);
  });
});

describe("reviews are study activity", () => {
  it("are in the learner's export and gone after erasure", async () => {
    const { learner, caller } = await learnerWithDeck(1);
    const [card] = (await caller.review.queue()).cards;
    await caller.review.rate({ cardId: card!.id, rating: "hard", reps: 0 });
    const me = learner.user.id;
    const exported = (await exportLearnerData(me, { type: "learner", id: me })) as unknown as {
      reviewCards: { front: string; reps: number; logs: { rating: string }[] }[];
    };
    expect(exported.reviewCards).toHaveLength(1);
    expect(exported.reviewCards[0]).toMatchObject({ front: "Front 1", reps: 1 });
    // Stored as the FSRS grade, exported by name.
    expect(exported.reviewCards[0]!.logs.map((l) => l.rating)).toEqual(["hard"]);

    const erased = await eraseLearner(me, { type: "learner", id: me });
    expect(erased.counts).toMatchObject({ reviewCards: 1, reviewLogs: 1 });
    expect(await getDb().reviewCard.count({ where: { userId: me } })).toBe(0);
    expect(await getDb().reviewLog.count({ where: { userId: me } })).toBe(0);
  });
});
