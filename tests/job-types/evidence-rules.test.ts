import { describe, expect, it } from "vitest";
import { OUTPUT_SCHEMA_VERSION } from "@/server/job-types";
import { EVIDENCE_RULES, evidenceFindings, type EvidenceType } from "@/server/job-types/evidence";
import { keyTermOf } from "@/server/job-types/evidence/items";
import { dueCountsIn } from "@/server/job-types/evidence/next-actions";
import type { LearningAnalysis } from "@/server/job-types/learning-state-analysis";
import type { NextActions } from "@/server/job-types/next-action-planning";
import type { WeakPoints } from "@/server/job-types/weak-point-analysis";
import { masteryOf, reviewRecall } from "@/server/job-types/shared/statistics";
import { analyse } from "@/server/providers/local";
import type { Locale } from "@/server/i18n/locales";
import { AS_OF } from "../pipeline/fixtures";
import { tour } from "./tour";

const rulesOf = (type: EvidenceType, output: unknown, snapshot = tour()) =>
  evidenceFindings(type, output, { snapshot, version: OUTPUT_SCHEMA_VERSION }).map((f) => f.rule);
const state = (locale: Locale = "zh-CN") =>
  analyse("learning_state_analysis", tour(), {}, AS_OF, locale) as LearningAnalysis;
const weak = (locale: Locale = "zh-CN") => analyse("weak_point_analysis", tour(), {}, AS_OF, locale) as WeakPoints;
const plan = (locale: Locale = "zh-CN") =>
  analyse("next_action_planning", tour(), { timeBudgetMinutes: 120 }, AS_OF, locale) as NextActions;

/** Every rule a test below shows caught: the meta-test holds the list to the rule table. */
const tested = new Set<string>();
const expectCaught = (type: EvidenceType, output: unknown, rule: string) => {
  tested.add(`${type}.${rule}`);
  expect(rulesOf(type, output)).toContain(rule);
};

describe("mastery from answers and reviews together (masteryOf)", () => {
  it("weighs the recency-weighted answers by their number and the reviews' recall by theirs", () => {
    // k1: answers 1, recall min(1, 1/2) × (1 − 1/1) = 0 → (3·1 + 2·0)/5.
    const s = tour();
    const k1 = s.reviews!.knowledgePoints[0]!;
    expect(reviewRecall(k1)).toBe(0);
    expect(masteryOf([{ correct: true }, { correct: true }, { correct: true }], k1)).toBe(0.6);
    // k2: one wrong answer, two passed reviews at recall 1 → (0 + 2)/3.
    expect(masteryOf([{ correct: false }], s.reviews!.knowledgePoints[1]!)).toBe(0.667);
    // k5: reviews only; recall min(1, 2/3) × (1 − 1/2).
    expect(masteryOf([], s.reviews!.knowledgePoints[2]!)).toBe(0.333);
    expect(masteryOf([], undefined)).toBe(0);
  });
});

describe.each(["zh-CN", "en"] as const)("the offline analyzers on the tour's learner (%s)", (locale) => {
  it("pass every evidence rule", () => {
    expect(rulesOf("learning_state_analysis", state(locale))).toEqual([]);
    expect(rulesOf("weak_point_analysis", weak(locale))).toEqual([]);
    expect(rulesOf("next_action_planning", plan(locale))).toEqual([]);
  });

  it("never call a forgotten point a strength or the strongest, nor one point both a strength and a risk", () => {
    const out = state(locale);
    const strengths = out.strengths.map((s) => s.knowledgePointId);
    const risks = out.risks.map((r) => r.knowledgePointId);
    expect(strengths).toEqual(["k3"]);
    expect(strengths.filter((id) => risks.includes(id))).toEqual([]);
    expect(risks).toEqual(expect.arrayContaining(["k1", "k5", "k4"]));
    expect(out.strongestKnowledgePointId).toBe("k3");
    expect(out.knowledgePoints.find((k) => k.knowledgePointId === "k1")!.mastery).toBe(0.6);
    // No recall of 100 % quoted for a point whose card was just forgotten.
    for (const r of out.risks.filter((x) => x.knowledgePointId === "k1" || x.knowledgePointId === "k5"))
      expect(r.text).not.toMatch(/100\s*%/);
  });

  it("plan each point once per action type, its due cards as the Review view counts them", () => {
    const actions = plan(locale).actions.filter((a) => a.target.id === "k1");
    expect(actions.map((a) => [a.actionType, a.dueCards])).toEqual([["review", 1]]);
    expect(dueCountsIn(`${actions[0]!.title} ${actions[0]!.reason}`)).toEqual([1, 1]);
  });
});

describe("learning_state_analysis: each contradiction is a finding", () => {
  it("answers counted, mastery and overall mastery within the band of the evidence", () => {
    const out = state();
    const k1 = out.knowledgePoints.findIndex((k) => k.knowledgePointId === "k1");
    const bad = structuredClone(out);
    bad.knowledgePoints[k1]!.attempts = 4;
    expectCaught("learning_state_analysis", bad, "attempts_match");
    // The mastery bars of old: answers only (100 %), the forgotten card ignored.
    const quizOnly = structuredClone(out);
    quizOnly.knowledgePoints[k1]!.mastery = 1;
    expectCaught("learning_state_analysis", quizOnly, "mastery_band");
    expectCaught("learning_state_analysis", { ...out, overallMastery: 1 }, "overall_band");
  });

  it("a point both a strength and a risk; a forgotten point a strength or the best; percentages the evidence does not give", () => {
    const out = state();
    // "复习 2 次，预计记忆保持率 100 %" and "掌握度 0 %，最近 1 次作答错了 1 次" for one point.
    const both = {
      ...out,
      strengths: [...out.strengths, { knowledgePointId: "k2", text: "二、电压：复习 2 次，预计记忆保持率 100 %" }],
      risks: [...out.risks, { knowledgePointId: "k2", text: "二、电压：掌握度 0 %，最近 1 次作答错了 1 次" }],
    };
    expectCaught("learning_state_analysis", both, "strength_and_risk");
    // "掌握最好：一、电流 (100 %)" while its card was forgotten at its latest review.
    const best = { ...out, strongestKnowledgePointId: "k1" };
    expectCaught("learning_state_analysis", best, "forgotten_strength");
    expectCaught("learning_state_analysis", best, "strongest_evidence");
    const forgottenStrength = {
      ...out,
      strengths: [{ knowledgePointId: "k1", text: "一、电流：掌握度 100 %，共作答 3 次" }],
    };
    expectCaught("learning_state_analysis", forgottenStrength, "forgotten_strength");
    expectCaught("learning_state_analysis", forgottenStrength, "strength_evidence");
    // "预计记忆保持率 100 %" for a point whose card was failed minutes before.
    const recall = { ...out, risks: [{ knowledgePointId: "k5", text: "五、电功率：复习 3 次，预计记忆保持率 100 %" }] };
    expectCaught("learning_state_analysis", recall, "quoted_percent");
    // Counts the snapshot does not hold: k2 has one answer, not three.
    const counts = { ...out, risks: [{ knowledgePointId: "k2", text: "二、电压：最近 3 次作答错了 2 次" }] };
    expectCaught("learning_state_analysis", counts, "quoted_counts");
    const countsEn = { ...out, risks: [{ knowledgePointId: "k1", text: "1. Current: 2 of the last 3 answers wrong" }] };
    expectCaught("learning_state_analysis", countsEn, "quoted_counts");
  });

  it("checks a v1 result as far as it can (its strengths and risks name no point)", () => {
    const out = state();
    const v1 = {
      ...out,
      strongestKnowledgePointId: undefined,
      strengths: out.strengths.map((s) => s.text),
      risks: out.risks.map((r) => r.text),
    };
    delete v1.strongestKnowledgePointId;
    expect(evidenceFindings("learning_state_analysis", v1, { snapshot: tour(), version: "v1" })).toEqual([]);
    const k1 = v1.knowledgePoints.findIndex((k) => k.knowledgePointId === "k1");
    v1.knowledgePoints[k1] = { ...v1.knowledgePoints[k1]!, mastery: 1 };
    expect(
      evidenceFindings("learning_state_analysis", v1, { snapshot: tour(), version: "v1" }).map((f) => f.rule),
    ).toEqual(["mastery_band"]);
  });
});

describe("weak_point_analysis: each contradiction is a finding", () => {
  it("a point not weak, a clearly weak point left out, a severity against the counts, a percentage the evidence does not give", () => {
    const out = weak();
    const k1 = out.weakPoints.findIndex((w) => w.knowledgePointId === "k1");
    expect(k1).toBeGreaterThanOrEqual(0);
    const strong = {
      weakPoints: [
        ...out.weakPoints,
        {
          knowledgePointId: "k3",
          title: "三、电阻",
          severity: "low",
          evidence: ["掌握度 100 %"],
          suggestedReview: "复习。",
        },
      ],
    };
    expectCaught("weak_point_analysis", strong, "weak_evidence");
    expectCaught(
      "weak_point_analysis",
      { weakPoints: out.weakPoints.filter((w) => w.knowledgePointId !== "k1") },
      "weak_missed",
    );
    const low = structuredClone(out);
    low.weakPoints[k1]!.severity = "low";
    expectCaught("weak_point_analysis", low, "severity_counts");
    const quoted = structuredClone(out);
    quoted.weakPoints[k1]!.evidence = ["掌握度 100 %，复习中预计记忆保持率 100 %"];
    // k1's answers are all right (100 % of them is a fact); its reviews' recall is not quotable.
    expect(rulesOf("weak_point_analysis", quoted)).not.toContain("quoted_percent");
    const k5 = quoted.weakPoints.findIndex((w) => w.knowledgePointId === "k5");
    quoted.weakPoints[k5]!.evidence = ["预计记忆保持率 100 %"];
    expectCaught("weak_point_analysis", quoted, "quoted_percent");
    const counted = structuredClone(out);
    counted.weakPoints[k1]!.evidence = ["掌握度 60 %，共作答 5 次、复习 2 次"];
    expectCaught("weak_point_analysis", counted, "quoted_counts");
    counted.weakPoints[k1]!.evidence = ["Mastery 60 % over 3 answers and 2 reviews"];
    expect(rulesOf("weak_point_analysis", counted)).toEqual([]);
  });
});

describe("next_action_planning: each contradiction is a finding", () => {
  it("a point twice under one action type; due counts the Review view does not show", () => {
    const out = plan();
    const twice = {
      actions: [
        ...out.actions,
        { ...out.actions.find((a) => a.target.id === "k1")!, title: "复习“一、电流”", dueCards: undefined },
      ],
    };
    expectCaught("next_action_planning", twice, "point_once_per_action");
    const k2 = {
      actionType: "review" as const,
      target: { type: "knowledge_point" as const, id: "k2" },
      title: "Review the 2 due cards of 二、电压",
      reason: "Due now.",
      priority: 2,
      estimatedMinutes: 5,
    };
    expectCaught("next_action_planning", { actions: [k2] }, "due_count");
    expectCaught("next_action_planning", { actions: [{ ...k2, title: "Review 二、电压", dueCards: 3 }] }, "due_count");
    expect(dueCountsIn("复习“X”的 3 张到期卡片")).toEqual([3]);
    expect(dueCountsIn("2 张卡片到期待复习")).toEqual([2]);
    expect(dueCountsIn("1 card due for review")).toEqual([1]);
  });
});

describe("quiz_generation and flashcard_generation: items that test understanding", () => {
  const question = (stem: string, answer: string, type: "single_choice" | "true_false" = "single_choice") => ({
    type,
    stem,
    options: type === "true_false" ? ["正确", "错误"] : [answer, "电压", "电阻"],
    answer,
    explanation: "…",
    knowledgePointId: "k1",
    difficulty: "easy" as const,
  });
  it("true/false sets hold both values", () => {
    const allTrue = {
      questions: [question("判断：A", "正确", "true_false"), question("判断：B", "正确", "true_false")],
    };
    expectCaught("quiz_generation", allTrue, "true_false_both");
    const both = { questions: [question("判断：A", "正确", "true_false"), question("判断：B", "错误", "true_false")] };
    expect(rulesOf("quiz_generation", both)).toEqual([]);
  });
  it("no correct option repeats the stem's key term (the heading's numbering stripped)", () => {
    expect(keyTermOf("一、电流")).toBe("电流");
    expect(keyTermOf("Chapter 4: Newton's first law")).toBe("Newton's first law");
    expect(keyTermOf("2.3 Inertia")).toBe("Inertia");
    const giveaway = { questions: [question("下列哪一项描述了“电流”？", "电流是电荷的定向移动")] };
    expectCaught("quiz_generation", giveaway, "answer_repeats_key_term");
    expect(rulesOf("quiz_generation", { questions: [question("下列哪一项描述了“电流”？", "电荷的定向移动")] })).toEqual(
      [],
    );
  });
  it("flashcard fronts are questions about the concept, not its heading", () => {
    const card = (front: string) => ({
      flashcards: [{ front, back: "电荷的定向移动形成电流。", knowledgePointId: "k1", tags: [] }],
    });
    expectCaught("flashcard_generation", card("什么是“一、电流”？"), "front_is_heading");
    expectCaught("flashcard_generation", card("一、电流"), "front_is_heading");
    expectCaught("flashcard_generation", card("电流"), "front_is_question");
    expect(rulesOf("flashcard_generation", card("电荷怎样移动才形成电流？"))).toEqual([]);
    expect(rulesOf("flashcard_generation", card("填空：电荷的_____形成电流"))).toEqual([]);
  });
});

describe("the rule table", () => {
  it("every evidence rule has a test above that shows it caught", () => {
    const all = Object.entries(EVIDENCE_RULES).flatMap(([type, r]) =>
      Object.keys(r.rules).map((rule) => `${type}.${rule}`),
    );
    expect([...tested].sort()).toEqual(all.sort());
  });
});
