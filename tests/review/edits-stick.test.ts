import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { callerAs } from "../helpers/auth";
import { createLearner, type Learner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";

/**
 * Her edits stick: a generated deck regenerated (the same cards again, some with a new back) never
 * doubles, overwrites or revives what she did to its cards — edited, deleted, suspended — and an
 * edited card's text is cleaned like all learner text.
 */
const deck = (kp: string, backs: string[] = ["Stroma", "Thylakoid membrane", "Oxygen", "Light"]) => ({
  flashcards: [
    "Where does the Calvin cycle run?",
    "Where do the light reactions run?",
    "Which gas is released?",
    "What drives photosynthesis?",
  ].map((front, i) => ({ front, back: backs[i]!, knowledgePointId: kp, tags: [] })),
});

async function newDeck(learner: Learner, backs?: string[]) {
  const job = await succeededJob(
    learner,
    "flashcard_generation",
    { count: 4 },
    deck(learner.knowledgePoints[0]!.id, backs),
  );
  return callerAs(learner.user).review.addDeck({ jobId: job.id });
}

const cardsOf = (learner: Learner) =>
  getDb().reviewCard.findMany({
    where: { userId: learner.user.id },
    orderBy: { createdAt: "asc" },
    select: { id: true, front: true, back: true, suspended: true, editedAt: true },
  });

describe("her edits stick", () => {
  it("a regenerated deck keeps her edited, deleted and suspended cards as she left them; every later deck does", async () => {
    const learner = await createLearner();
    const caller = callerAs(learner.user);
    expect(await newDeck(learner)).toMatchObject({ added: 4, updated: 0, skipped: 0 });
    const first = await cardsOf(learner);
    const [calvin, light, gas, drive] = deck("").flashcards.map((c) => first.find((x) => x.front === c.front));

    await caller.review.edit({
      cardId: calvin!.id,
      front: "Calvin cycle: where?",
      back: "In the stroma of the chloroplast",
    });
    await caller.review.delete({ cardId: gas!.id });
    await caller.review.suspend({ cardId: light!.id, suspended: true });

    // The same deck again, every back changed: nothing doubled, her edit not overwritten, the
    // deleted card not back, the suspended card still suspended (its back follows the new deck).
    for (const round of [1, 2]) {
      const again = await newDeck(learner, ["Stroma!", "Thylakoids!", "O2!", `Light ${round}`]);
      expect(again).toMatchObject({ added: 0, updated: round === 1 ? 2 : 1, skipped: round === 1 ? 2 : 3 });
      const cards = await cardsOf(learner);
      expect(cards.map((c) => c.id).sort()).toEqual([calvin!.id, light!.id, drive!.id].sort());
      expect(cards.find((c) => c.id === calvin!.id)).toMatchObject({
        front: "Calvin cycle: where?",
        back: "In the stroma of the chloroplast",
      });
      expect(cards.find((c) => c.id === light!.id)).toMatchObject({ suspended: true, back: "Thylakoids!" });
      expect(cards.find((c) => c.id === drive!.id)).toMatchObject({ suspended: false, back: `Light ${round}` });
    }
    expect(await getDb().reviewCardTombstone.count({ where: { userId: learner.user.id } })).toBe(1);
  });

  it("a deleted wrong question does not come back when she gets it wrong again", async () => {
    const learner = await createLearner();
    const caller = callerAs(learner.user);
    const quiz = await succeededJob(learner, "quiz_generation", { count: 3 });
    const answers = [0, 1, 2].map((index) => ({ index, response: "surely not this" }));
    await caller.quiz.submit({ jobId: quiz.id, answers });
    const questions = await getDb().reviewCard.findMany({ where: { userId: learner.user.id, kind: "question" } });
    expect(questions).toHaveLength(3);
    await caller.review.delete({ cardId: questions[0]!.id });
    // The same quiz again, and another quiz asking the same: the deleted question stays deleted.
    await caller.quiz.submit({ jobId: quiz.id, answers });
    const other = await succeededJob(learner, "quiz_generation", { count: 3 });
    await caller.quiz.submit({ jobId: other.id, answers });
    const after = await getDb().reviewCard.findMany({ where: { userId: learner.user.id, kind: "question" } });
    expect(after.map((c) => c.front)).not.toContain(questions[0]!.front);
    expect(after.map((c) => c.id).sort()).toEqual(
      questions
        .slice(1)
        .map((c) => c.id)
        .sort(),
    );
  });

  it("an edited card's text is cleaned like other learner text: no bidi overrides or controls", async () => {
    const learner = await createLearner();
    const caller = callerAs(learner.user);
    await newDeck(learner);
    const [card] = await cardsOf(learner);
    const edited = await caller.review.edit({
      cardId: card!.id,
      front: "Where\u202e does it run?\u0007",
      back: "In the \u2066stroma\u2069\nof the chloroplast",
    });
    expect(edited).toMatchObject({ front: "Where does it run?", back: "In the stroma\nof the chloroplast" });
    const [stored] = await cardsOf(learner);
    expect(stored!.front).toBe("Where does it run?");
    expect(stored!.editedAt).not.toBeNull();
  });
});
