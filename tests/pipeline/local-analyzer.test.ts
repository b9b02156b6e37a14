import { describe, expect, it } from "vitest";
import { OUTPUT_SCHEMA_VERSION } from "@/server/job-types";
import { checkOutput } from "@/server/jobs/quality";
import { paramsSchemas, type JobTypeName, type SnapshotContent } from "@/server/jobs/schemas";
import { analyse } from "@/server/providers/local";
import { AS_OF, smallSnapshot, tinySnapshot } from "./fixtures";

const params = <T extends JobTypeName>(t: T, p: Record<string, unknown> = {}) =>
  paramsSchemas[t].parse(p) as Record<string, unknown>;
const passes = (t: JobTypeName, snapshot: SnapshotContent, output: unknown, p: Record<string, unknown>) =>
  checkOutput(t, OUTPUT_SCHEMA_VERSION, output, {
    knowledgePointIds: new Set(snapshot.knowledgePoints.map((k) => k.id)),
    params: p,
  });

describe("local analyzer: learning_state_analysis", () => {
  it("computes recency-weighted mastery, confidence, engagement, strengths and risks as worked out by hand", () => {
    const snap = smallSnapshot();
    const out = analyse("learning_state_analysis", snap, {}, AS_OF) as { [k: string]: unknown } & {
      knowledgePoints: { knowledgePointId: string; mastery: number; confidence: number; attempts: number }[];
    };
    expect(passes("learning_state_analysis", snap, out, {})).toMatchObject({ ok: true });
    expect(out.knowledgePoints.map((k) => [k.knowledgePointId, k.mastery, k.confidence, k.attempts])).toEqual([
      ["kp_a", 1, 0.5, 3],
      ["kp_b", 0.224, 0.5, 3],
      ["kp_c", 0.588, 0.4, 2],
      ["kp_d", 0, 0, 0],
    ]);
    // Mean over practised points: (1 + 0.224 + 0.588) / 3.
    expect(out.overallMastery).toBe(0.604);
    // 45 session minutes + 2 × 8 answers inside 14 days = 61 → medium; the 1 Nov session is outside the window.
    expect(out.engagementLevel).toBe("medium");
    // Each strength and risk names its point (v2); a point is one or the other, never both. Risks
    // are the learner model's weak band (below 0.6: kp_c at 59 % too), as the weak points read it.
    expect(out.strengths).toEqual([{ knowledgePointId: "kp_a", text: "Light reactions: 100% mastery over 3 answers" }]);
    expect(out.risks).toEqual([
      { knowledgePointId: "kp_b", text: "Calvin cycle: 22% mastery, 2 of the last 3 answers wrong" },
      { knowledgePointId: "kp_c", text: "Limiting factors: 59% mastery, 1 of the last 2 answers wrong" },
      { knowledgePointId: "kp_d", text: "Chlorophyll: not practised yet" },
    ]);
    expect(out.strongestKnowledgePointId).toBe("kp_a");
    expect(out.summary).toContain("3 of 4 knowledge points (8 answers)");
  });

  it("lets an older wrong answer weigh less than a newer one", () => {
    const snap = smallSnapshot();
    // Swap kp_c's answers in time: wrong is now the newest → 0.7 / 1.7 = 0.412.
    snap.quizAttempts = snap.quizAttempts.map((a) =>
      a.knowledgePointId === "kp_c" ? { ...a, correct: !a.correct } : a,
    );
    const out = analyse("learning_state_analysis", snap, {}, AS_OF) as {
      knowledgePoints: { knowledgePointId: string; mastery: number }[];
    };
    expect(out.knowledgePoints.find((k) => k.knowledgePointId === "kp_c")?.mastery).toBe(0.412);
  });
});

describe("local analyzer: weak_point_analysis", () => {
  it("ranks by low mastery and recent errors, with severity and the evidence that made each point weak", () => {
    const snap = smallSnapshot();
    const out = analyse("weak_point_analysis", snap, {}, AS_OF) as {
      weakPoints: { knowledgePointId: string; severity: string; evidence: string[]; suggestedReview: string }[];
    };
    expect(passes("weak_point_analysis", snap, out, {})).toMatchObject({ ok: true });
    // kp_b: 1 - 0.224 + 0.15·2 = 1.076; kp_c: 1 - 0.588 + 0.15·1 = 0.562; kp_a is mastered, kp_d untried.
    expect(out.weakPoints.map((w) => [w.knowledgePointId, w.severity])).toEqual([
      ["kp_b", "high"],
      ["kp_c", "medium"],
    ]);
    expect(out.weakPoints[0]!.evidence).toEqual([
      "Mastery 22% over 3 answers (recent answers weigh more)",
      "2 of the last 3 answers wrong",
      'Wrong on 2026-11-19: "Where does the Calvin cycle run?"',
      'Wrong on 2026-11-18: "What does RuBisCO fix?"',
    ]);
    expect(out.weakPoints[0]!.suggestedReview).toContain('Re-read "Photosynthesis" on "Calvin cycle"');
  });
});

describe("local analyzer: next_action_planning", () => {
  type Plan = {
    actions: {
      actionType: string;
      target: { id: string | null };
      priority: number;
      estimatedMinutes: number;
      reason: string;
    }[];
  };
  const plan = (snap: SnapshotContent, budget: number, asOf = AS_OF) =>
    analyse("next_action_planning", snap, params("next_action_planning", { timeBudgetMinutes: budget }), asOf) as Plan;

  it("reviews weak points by severity, then learns untried points, within the time budget", () => {
    const snap = smallSnapshot();
    const out = plan(snap, 60);
    expect(
      passes("next_action_planning", snap, out, params("next_action_planning", { timeBudgetMinutes: 60 })),
    ).toMatchObject({ ok: true });
    expect(out.actions.map((a) => [a.actionType, a.target.id, a.priority, a.estimatedMinutes])).toEqual([
      ["review", "kp_b", 1, 20],
      ["review", "kp_c", 2, 15],
      ["learn_new", "kp_d", 3, 20],
    ]);
  });

  it("shortens the last action to what is left of the budget", () => {
    const out = plan(smallSnapshot(), 40);
    expect(out.actions.map((a) => a.estimatedMinutes)).toEqual([20, 15, 5]);
    expect(plan(smallSnapshot(), 30).actions.map((a) => a.estimatedMinutes)).toEqual([20, 10]);
  });

  it("after a week away says so, and schedules spaced practice for mastered points", () => {
    const asOf = new Date(AS_OF.getTime() + 9 * 86_400_000); // 29 Nov: last study 19 Nov 10:00 → 10 days
    const out = plan(smallSnapshot(), 120, asOf);
    expect(out.actions[0]!.reason).toContain("You last studied 10 days ago");
    expect(out.actions.at(-1)).toMatchObject({
      actionType: "practice",
      target: { id: "kp_a" },
      priority: 4,
      estimatedMinutes: 10,
    });
    expect(out.actions.at(-1)!.reason).toContain("last practised 10 days ago");
  });

  it("suggests a rest first after two hours of study in the last day", () => {
    const snap = smallSnapshot();
    snap.studySessions.unshift({ materialId: "m1", startedAt: "2026-11-20T08:00:00.000Z", minutes: 130 });
    expect(plan(snap, 60).actions[0]).toMatchObject({ actionType: "rest", target: { id: null }, estimatedMinutes: 10 });
  });
});

describe("local analyzer: quiz_generation", () => {
  type Q = {
    type: string;
    stem: string;
    options: string[];
    answer: string;
    knowledgePointId: string;
    difficulty: string;
  };
  it("asks the weakest points first, alternates the requested types, sets mixed difficulty from mastery", () => {
    const snap = smallSnapshot();
    const p = params("quiz_generation", {
      count: 6,
      difficulty: "mixed",
      questionTypes: ["single_choice", "true_false"],
    });
    const out = analyse("quiz_generation", snap, p, AS_OF) as { questions: Q[] };
    expect(passes("quiz_generation", snap, out, p)).toMatchObject({ ok: true });
    // Order by mastery: kp_b 0.224, kp_d untried (0.5), kp_c 0.588, kp_a 1.
    expect(out.questions.map((q) => [q.knowledgePointId, q.type, q.difficulty])).toEqual([
      ["kp_b", "single_choice", "easy"],
      ["kp_d", "true_false", "easy"],
      ["kp_c", "single_choice", "medium"],
      ["kp_a", "true_false", "hard"],
      ["kp_b", "true_false", "easy"],
      ["kp_d", "single_choice", "easy"],
    ]);
    const first = out.questions[0]!;
    expect(first.stem).toBe('Which statement describes "Calvin cycle"? (_____ stands for it)');
    expect(first.answer).toBe("RuBisCO fixes carbon dioxide in the stroma to build glucose.");
    expect(first.options).toHaveLength(3); // easy: the answer and two other points' descriptions
    expect(first.options.filter((o) => o === first.answer)).toHaveLength(1);
  });

  it("keeps a requested difficulty and builds short answers from the content", () => {
    const snap = smallSnapshot();
    const p = params("quiz_generation", { count: 4, difficulty: "hard", questionTypes: ["short_answer"] });
    const out = analyse("quiz_generation", snap, p, AS_OF) as { questions: Q[] };
    expect(passes("quiz_generation", snap, out, p)).toMatchObject({ ok: true });
    expect(
      out.questions.every((q) => q.difficulty === "hard" && q.type === "short_answer" && q.options.length === 0),
    ).toBe(true);
    expect(out.questions[0]).toMatchObject({
      stem: 'Explain "Calvin cycle" in your own words.',
      answer: "RuBisCO fixes carbon dioxide in the stroma to build glucose.",
    });
  });

  it("writes 20 distinct questions about a single point with a one-line material", () => {
    const snap = tinySnapshot();
    for (const types of [
      ["single_choice"],
      ["true_false"],
      ["short_answer"],
      ["single_choice", "true_false", "short_answer"],
    ]) {
      const p = params("quiz_generation", { count: 20, difficulty: "easy", questionTypes: types });
      const out = analyse("quiz_generation", snap, p, AS_OF) as { questions: Q[] };
      expect(passes("quiz_generation", snap, out, p)).toMatchObject({ ok: true });
    }
  });

  it("fails INVALID_SNAPSHOT when there is no knowledge point to ask about", () => {
    const snap = { ...tinySnapshot(), knowledgePoints: [] };
    expect(() => analyse("quiz_generation", snap, params("quiz_generation"), AS_OF)).toThrow(
      expect.objectContaining({ code: "INVALID_SNAPSHOT" }),
    );
  });
});

describe("local analyzer: flashcard_generation", () => {
  type C = { front: string; back: string; knowledgePointId: string; tags: string[] };
  it("makes definition cards first, weakest points first, tagged with the material and needs-review", () => {
    const snap = smallSnapshot();
    const p = params("flashcard_generation", { count: 5 });
    const out = analyse("flashcard_generation", snap, p, AS_OF) as { flashcards: C[] };
    expect(passes("flashcard_generation", snap, out, p)).toMatchObject({ ok: true });
    expect(out.flashcards.map((c) => [c.knowledgePointId, c.front])).toEqual([
      ["kp_b", 'What is "Calvin cycle"?'],
      ["kp_d", 'What is "Chlorophyll"?'],
      ["kp_c", 'What is "Limiting factors"?'],
      ["kp_a", 'What is "Light reactions"?'],
      [
        "kp_b",
        'Which term fills the blank: "In the Calvin cycle, in the stroma, the enzyme RuBisCO fixes _____ to build glucose."?',
      ],
    ]);
    // The back answers in a sentence (the point's description), then what the material says of it, apart.
    expect(out.flashcards[0]).toMatchObject({
      back:
        "RuBisCO fixes carbon dioxide in the stroma to build glucose.\n\n" +
        "Source: In the Calvin cycle, in the stroma, the enzyme RuBisCO fixes carbon dioxide to build glucose.",
      tags: ["photosynthesis", "needs-review"],
    });
    expect(out.flashcards[3]!.tags).toEqual(["photosynthesis"]);
  });

  it("writes 50 distinct cards about a single point", () => {
    const snap = tinySnapshot();
    const p = params("flashcard_generation", { count: 50 });
    expect(passes("flashcard_generation", snap, analyse("flashcard_generation", snap, p, AS_OF), p)).toMatchObject({
      ok: true,
    });
  });
});

describe("local analyzer determinism", () => {
  it("gives the same output for the same input, for every job type", () => {
    for (const t of [
      "learning_state_analysis",
      "weak_point_analysis",
      "next_action_planning",
      "quiz_generation",
      "flashcard_generation",
    ] as const) {
      const a = analyse(t, smallSnapshot(), params(t), AS_OF);
      const b = analyse(t, structuredClone(smallSnapshot()), params(t), new Date(AS_OF));
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    }
  });
});
