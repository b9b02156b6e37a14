import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { advanceClock, now, resetClock } from "@/server/clock";
import { exportLearnerData } from "@/server/learners/export";
import { eraseLearner } from "@/server/learners/erase";
import { localMidnight } from "@/server/review/day";
import { callerAs } from "../helpers/auth";
import { createLearner, type Learner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { codeOf } from "../helpers/trpc-code";

/**
 * Cards the learner controls (server/review/decks.ts, manage.ts) through their procedures, on a
 * real database: a regenerated deck adds no front twice, and a card can be edited, suspended,
 * buried until tomorrow, reset and deleted.
 */
afterEach(() => resetClock());

const HOUR = 3_600_000;

function deck(learner: Learner, cards: { front: string; back: string; kp?: number }[]) {
  const flashcards = cards.map((c) => ({
    front: c.front,
    back: c.back,
    knowledgePointId: learner.knowledgePoints[c.kp ?? 0]!.id,
    tags: ["bio"],
  }));
  return succeededJob(learner, "flashcard_generation", { count: cards.length }, { flashcards });
}

describe("a regenerated deck", () => {
  it("adds only fronts not yet scheduled for their point, updates a changed back, and asks before joining", async () => {
    const learner = await createLearner();
    const caller = callerAs(learner.user);
    const first = await deck(learner, [
      { front: "What is ATP?", back: "Energy currency" },
      { front: "Where does photosynthesis happen?", back: "Chloroplasts" },
    ]);
    expect(await caller.review.addDeck({ jobId: first.id })).toMatchObject({ added: 2, updated: 0, skipped: 0 });
    // The second "Run all five": the same fronts (spelt a little differently), one new back, one new card.
    const second = await deck(learner, [
      { front: "what is  ATP", back: "Energy currency" },
      { front: "Where does photosynthesis happen?", back: "In the chloroplasts" },
      { front: "What is chlorophyll?", back: "A pigment" },
    ]);
    const queue = await caller.review.queue();
    expect(queue.pendingDecks.map((d) => d.jobId)).toEqual([second.id]);
    expect(queue.cards).toHaveLength(2);
    expect(await caller.review.addDeck({ jobId: second.id })).toMatchObject({ added: 1, updated: 1, skipped: 1 });
    // The same front on another point is another card.
    const third = await deck(learner, [{ front: "What is ATP?", back: "Energy currency", kp: 1 }]);
    expect(await caller.review.addDeck({ jobId: third.id })).toMatchObject({ added: 1, updated: 0, skipped: 0 });
    const after = await caller.review.queue();
    expect(after.cards.map((c) => `${c.knowledgePointTitle}: ${c.front} → ${c.back}`).sort()).toEqual(
      [
        `${learner.knowledgePoints[0]!.title}: What is ATP? → Energy currency`,
        `${learner.knowledgePoints[0]!.title}: Where does photosynthesis happen? → In the chloroplasts`,
        `${learner.knowledgePoints[0]!.title}: What is chlorophyll? → A pigment`,
        `${learner.knowledgePoints[1]!.title}: What is ATP? → Energy currency`,
      ].sort(),
    );
    // A third identical deck adds nothing: no duplicate in Review.
    const fourth = await deck(learner, [{ front: "What is chlorophyll?", back: "A pigment" }]);
    expect(await caller.review.addDeck({ jobId: fourth.id })).toMatchObject({ added: 0, updated: 0, skipped: 1 });
    expect(await getDb().reviewCard.count({ where: { userId: learner.user.id } })).toBe(4);
  });

  it("'not now' leaves the deck out of Review and stops asking; it can still be added later", async () => {
    const learner = await createLearner();
    const caller = callerAs(learner.user);
    const d = await deck(learner, [{ front: "Q", back: "A" }]);
    expect(await caller.review.dismissDeck({ jobId: d.id })).toMatchObject({ decision: "dismissed" });
    const q = await caller.review.queue();
    expect(q.pendingDecks).toEqual([]);
    expect(q.cardsInSchedule).toBe(0);
    expect((await caller.review.deck({ jobId: d.id })).decision).toMatchObject({ decision: "dismissed" });
    // Added from the deck later; "not now" after that changes nothing.
    expect(await caller.review.addDeck({ jobId: d.id })).toMatchObject({ decision: "added", added: 1 });
    expect(await caller.review.dismissDeck({ jobId: d.id })).toMatchObject({ decision: "added" });
    expect((await caller.review.queue()).cardsInSchedule).toBe(1);
  });

  it("a deck that is not the learner's, or not a finished deck, is NOT_FOUND", async () => {
    const learner = await createLearner();
    const other = await createLearner();
    const d = await deck(learner, [{ front: "Q", back: "A" }]);
    const quiz = await succeededJob(learner, "quiz_generation", { count: 1 });
    expect(await codeOf(callerAs(other.user).review.addDeck({ jobId: d.id }))).toBe("NOT_FOUND");
    expect(await codeOf(callerAs(learner.user).review.addDeck({ jobId: quiz.id }))).toBe("NOT_FOUND");
    expect(await getDb().reviewDeck.count({ where: { jobId: { in: [d.id, quiz.id] } } })).toBe(0);
  });
});

describe("managing a card", () => {
  async function oneCard() {
    const learner = await createLearner();
    const caller = callerAs(learner.user);
    const d = await deck(learner, [
      { front: "Q1", back: "A1" },
      { front: "Q2", back: "A2" },
    ]);
    await caller.review.addDeck({ jobId: d.id });
    const { cards } = await caller.review.queue();
    return { learner, caller, deckId: d.id, card: cards[0]!, other: cards[1]! };
  }

  it("edit changes its text; empty text is BAD_REQUEST and changes nothing", async () => {
    const { caller, card } = await oneCard();
    expect(await caller.review.edit({ cardId: card.id, front: "  New front ", back: "New back" })).toMatchObject({
      front: "New front",
      back: "New back",
    });
    expect(await codeOf(caller.review.edit({ cardId: card.id, front: " ", back: "x" }))).toBe("BAD_REQUEST");
    expect((await getDb().reviewCard.findUniqueOrThrow({ where: { id: card.id } })).front).toBe("New front");
  });

  it("suspend takes it out of Review until unsuspended", async () => {
    const { caller, card, other } = await oneCard();
    await caller.review.suspend({ cardId: card.id, suspended: true });
    expect((await caller.review.queue()).cards.map((c) => c.id)).toEqual([other.id]);
    advanceClock(30 * 24 * HOUR);
    expect((await caller.review.queue()).cards.map((c) => c.id)).toEqual([other.id]);
    await caller.review.suspend({ cardId: card.id, suspended: false });
    expect((await caller.review.queue()).cards.map((c) => c.id)).toContain(card.id);
  });

  it("bury hides it until the start of the learner's next day, in their time zone", async () => {
    const { caller, card, other } = await oneCard();
    const buried = await caller.review.bury({ cardId: card.id, buried: true, timeZone: "Asia/Shanghai" });
    const tomorrow = localMidnight(now(), "Asia/Shanghai", 1);
    expect(buried.buriedUntil).toBe(tomorrow.toISOString());
    // Midnight in Shanghai is 16:00 UTC.
    expect(tomorrow.getUTCHours()).toBe(16);
    expect((await caller.review.queue()).cards.map((c) => c.id)).toEqual([other.id]);
    advanceClock(tomorrow.getTime() - now().getTime() + 1000);
    expect((await caller.review.queue()).cards.map((c) => c.id)).toContain(card.id);
  });

  it("reset makes it a new card due now and keeps its log; delete removes it and its log", async () => {
    const { learner, caller, card, deckId } = await oneCard();
    await caller.review.rate({ cardId: card.id, rating: "easy", reps: 0 });
    expect((await caller.review.queue()).cards.map((c) => c.id)).not.toContain(card.id);
    const reset = await caller.review.reset({ cardId: card.id });
    expect(reset).toMatchObject({ reps: 0, state: 0 });
    expect((await caller.review.queue()).cards.map((c) => c.id)).toContain(card.id);
    expect(await getDb().reviewLog.count({ where: { cardId: card.id } })).toBe(1);

    expect(await caller.review.delete({ cardId: card.id })).toEqual({ id: card.id, deleted: true });
    expect(await getDb().reviewLog.count({ where: { cardId: card.id } })).toBe(0);
    expect((await caller.review.deck({ jobId: deckId })).cards).toHaveLength(1);
    expect(await codeOf(caller.review.delete({ cardId: card.id }))).toBe("NOT_FOUND");
    expect(await getDb().reviewCard.count({ where: { userId: learner.user.id } })).toBe(1);
  });

  it("another learner's card is NOT_FOUND for every action and stays as it was", async () => {
    const { card } = await oneCard();
    const stranger = callerAs((await createLearner()).user);
    for (const call of [
      () => stranger.review.edit({ cardId: card.id, front: "x", back: "y" }),
      () => stranger.review.suspend({ cardId: card.id, suspended: true }),
      () => stranger.review.bury({ cardId: card.id, buried: true }),
      () => stranger.review.reset({ cardId: card.id }),
      () => stranger.review.delete({ cardId: card.id }),
    ])
      expect(await codeOf(call())).toBe("NOT_FOUND");
    expect(await getDb().reviewCard.findUniqueOrThrow({ where: { id: card.id } })).toMatchObject({
      front: "Q1",
      suspended: false,
      buriedUntil: null,
    });
  });

  it("a managed card and the deck's answer are in the export and gone after erasure", async () => {
    const { learner, caller, card, deckId } = await oneCard();
    await caller.review.suspend({ cardId: card.id, suspended: true });
    await caller.review.edit({ cardId: card.id, front: "Mine", back: "Edited" });
    const me = learner.user.id;
    const exported = (await exportLearnerData(me, { type: "learner", id: me })) as unknown as {
      reviewCards: { id: string; front: string; suspended: boolean; buriedUntil: string | null }[];
      reviewDecks: { jobId: string; decision: string; added: number }[];
    };
    expect(exported.reviewCards.find((c) => c.id === card.id)).toMatchObject({ front: "Mine", suspended: true });
    expect(exported.reviewDecks).toEqual([expect.objectContaining({ jobId: deckId, decision: "added", added: 2 })]);
    const erased = await eraseLearner(me, { type: "learner", id: me });
    expect(erased.counts).toMatchObject({ reviewCards: 2, reviewDecks: 1 });
    expect(await getDb().reviewDeck.count({ where: { userId: me } })).toBe(0);
  });
});
