import { describe, expect, it } from "vitest";
import { OUTPUT_SCHEMA_VERSION } from "@/server/job-types";
import { evidenceFindings, type EvidenceType } from "@/server/job-types/evidence";
import { CLAIM_RULES } from "@/server/job-types/evidence/claims";
import { truthOf, verdictOf } from "@/server/job-types/evidence/claims/items";
import { canonical, chineseValue, englishValue } from "@/server/job-types/evidence/claims/numerals";
import { pointsNamed } from "@/server/job-types/evidence/claims/points";
import { quantifiersIn } from "@/server/job-types/evidence/claims/quantifiers";
import { claimsIn } from "@/server/job-types/evidence/claims/sentence";
import type { LearningAnalysis } from "@/server/job-types/learning-state-analysis";
import type { NextActions } from "@/server/job-types/next-action-planning";
import type { WeakPoints } from "@/server/job-types/weak-point-analysis";
import type { Quiz } from "@/server/job-types/quiz-generation/schema";
import type { Flashcards } from "@/server/job-types/flashcard-generation/schema";
import type { SnapshotContent } from "@/server/jobs/schemas";
import { analyse } from "@/server/providers/local";
import { AS_OF } from "../pipeline/fixtures";
import { tour } from "./tour";

/**
 * The tour's learner, and 四、串联电路 answered wrong 4 times (its newest 4 answers all wrong).
 * k1 一、电流: 3 right, 1 card forgotten, 1 due; k2 二、电压: 1 wrong; k3 三、电阻: 2 right.
 */
function learner(): SnapshotContent {
  const s = tour();
  for (const day of [12, 13, 14, 15])
    s.quizAttempts.push({
      knowledgePointId: "k4",
      question: `k4 的问题 ${day}`,
      correct: false,
      answeredAt: new Date(Date.UTC(2026, 10, day, 9)).toISOString(),
    });
  return s;
}
const findings = (type: EvidenceType, output: unknown, snapshot = learner()) =>
  evidenceFindings(type, output, { snapshot, version: OUTPUT_SCHEMA_VERSION, params: { timeBudgetMinutes: 60 } });
const claimRules = (type: EvidenceType, output: unknown, snapshot = learner()) =>
  findings(type, output, snapshot)
    .map((f) => f.rule)
    .filter((r) => r in CLAIM_RULES);

const state = (over: Partial<LearningAnalysis> = {}): LearningAnalysis => ({
  ...(analyse("learning_state_analysis", learner(), {}, AS_OF, "zh-CN") as LearningAnalysis),
  ...over,
});
const weak = () => analyse("weak_point_analysis", learner(), {}, AS_OF, "zh-CN") as WeakPoints;
const plan = () => analyse("next_action_planning", learner(), { timeBudgetMinutes: 60 }, AS_OF, "zh-CN") as NextActions;
const risk = (knowledgePointId: string | null, text: string) => state({ risks: [{ knowledgePointId, text }] });

describe("numbers in any form", () => {
  it("reads digits, full-width digits, Chinese numerals, English words, fractions and percentages in words", () => {
    expect(canonical("最近四次作答全部错误")).toBe("最近4次作答全部错误");
    expect(canonical("掌握度百分之四十")).toBe("掌握度40%");
    expect(canonical("三成")).toBe("30%");
    expect(canonical("一半的题答错了")).toBe("50%的题答错了");
    expect(canonical("今天要复习八张")).toBe("今天要复习8张");
    expect(canonical("两次")).toBe("2次");
    expect(canonical("十二张")).toBe("12张");
    expect(canonical("四分之三")).toBe("3 of 4");
    expect(canonical("４ 张卡片")).toBe("4 张卡片");
    expect(canonical("Forty percent")).toBe("40%");
    expect(canonical("forty per cent")).toBe("40%");
    expect(canonical("three out of four answers wrong")).toBe("3 of 4 answers wrong");
    expect(canonical("3/4 answers")).toBe("3 of 4 answers");
    expect(canonical("one hundred and five reviews")).toBe("105 reviews");
    expect(canonical("twenty-one answers")).toBe("21 answers");
    expect(canonical("reviewed twice")).toBe("reviewed 2 times");
  });
  it("leaves words that are not counts alone", () => {
    expect(canonical("一切进展顺利")).toBe("一切进展顺利");
    expect(canonical("第一次")).toBe("第一次");
    expect(canonical("统一")).toBe("统一");
    expect(canonical("成功")).toBe("成功");
    expect(canonical("not one of this course's knowledge points")).toBe("not one of this course's knowledge points");
    expect(chineseValue("二〇二六")).toBeNull();
    expect(chineseValue("两百")).toBe(200);
    expect(englishValue("ninety nine")).toBe(99);
  });
  it("reads what a count counts, and the window of newest answers it speaks of", () => {
    const c = claimsIn(canonical("最近三次作答错了两次，复习五次"));
    expect(c.scope).toBe(3);
    expect(c.claims.map((x) => [x.kind, "value" in x ? x.value : null])).toEqual([
      ["reviews", 5],
      ["wrong", 2],
    ]);
    expect(claimsIn(canonical("2 of the last 3 answers wrong")).fractions[0]).toMatchObject({
      part: 2,
      of: 3,
      recent: true,
      polarity: "wrong",
    });
    expect(claimsIn(canonical("four due cards")).claims[0]).toMatchObject({ kind: "due", value: 4 });
  });
});

describe("quantifiers over answers", () => {
  it.each([
    ["全部正确", "all_right"],
    ["都答对了", "all_right"],
    ["一次也没答错", "all_right"],
    ["一次也没答对", "all_wrong"],
    ["从来没答对过", "all_wrong"],
    ["大多数答错", "most_wrong"],
    ["大部分题目都正确", "most_right"],
    ["尚未作答", "no_answers"],
    ["all her answers were correct", "all_right"],
    ["every answer was wrong", "all_wrong"],
    ["none of her answers were right", "all_wrong"],
    ["never got one wrong", "all_right"],
    ["most answers were wrong", "most_wrong"],
    ["mostly right", "most_right"],
  ])("%s → %s", (text, says) => {
    expect(quantifiersIn(canonical(text)).found.map((q) => q.says)).toEqual([says]);
  });
});

describe("points named and item verdicts", () => {
  it("finds a point by title or name, the longer name winning", () => {
    const s = learner();
    expect(pointsNamed("电流和串联电路", s).map((n) => n.id)).toEqual(["k1", "k4"]);
    expect(pointsNamed("一、电流", s).map((n) => n.id)).toEqual(["k1"]);
  });
  it("reads a true/false explanation's verdict and an answer's value", () => {
    expect(verdictOf("错误。材料原文是：……")).toBe(false);
    expect(verdictOf("该说法正确，因为……")).toBe(true);
    expect(verdictOf("This statement is false: the material says …")).toBe(false);
    expect(verdictOf("True. The material says so.")).toBe(true);
    expect(verdictOf("The material says so: …")).toBeNull();
    expect(truthOf("正确")).toBe(true);
    expect(truthOf("False")).toBe(false);
  });
});

/** The thirteen phrasings the rules missed before: each is now a finding of the claims rules. */
describe("the thirteen contradictions, each caught", () => {
  it("1. a summary claiming every answer right", () => {
    expect(claimRules("learning_state_analysis", state({ summary: "小明的作答全部正确。" }))).toContain(
      "claim_quantifier",
    );
  });
  it("2. a sentence naming another point than its id", () => {
    expect(claimRules("learning_state_analysis", risk("k4", "电压：需要加强"))).toContain("claim_point");
  });
  it("3. counts in Chinese numerals: 最近四次作答全部错误 about a point answered right", () => {
    expect(claimRules("learning_state_analysis", risk("k3", "三、电阻：最近四次作答全部错误"))).toContain(
      "claim_count",
    );
    // True of 四、串联电路: no finding.
    expect(claimRules("learning_state_analysis", risk("k4", "四、串联电路：最近四次作答全部错误"))).toEqual([]);
  });
  it("4. a percentage in Chinese: 百分之四十", () => {
    expect(claimRules("learning_state_analysis", risk("k4", "掌握度只有百分之四十"))).toContain("claim_percent");
  });
  it("5. a percentage in English words", () => {
    expect(claimRules("learning_state_analysis", risk("k4", "Series circuit: forty percent mastery"))).toContain(
      "claim_percent",
    );
  });
  it("6. a due count in words", () => {
    const p = plan();
    const i = p.actions.findIndex((a) => a.target.id === "k1");
    p.actions[i] = { ...p.actions[i]!, reason: "You have four cards due today." };
    expect(claimRules("next_action_planning", p)).toContain("claim_count");
  });
  it("7. a plan reason inventing wrong answers", () => {
    const p = plan();
    const i = p.actions.findIndex((a) => a.target.id === "k1");
    p.actions[i] = { ...p.actions[i]!, reason: "你最近答错了三道题，需要再练。" };
    expect(claimRules("next_action_planning", p)).toContain("claim_count");
  });
  it("8. an evidence line saying 全部正确 for 0 of 4", () => {
    const w = weak();
    const i = w.weakPoints.findIndex((x) => x.knowledgePointId === "k4");
    w.weakPoints[i]!.evidence = ["最近 4 次作答全部正确"];
    expect(claimRules("weak_point_analysis", w)).toContain("claim_quantifier");
  });
  it("9. a true/false explanation contradicting its own answer", () => {
    const quiz: Quiz = {
      questions: [
        {
          type: "true_false",
          stem: "判断正误：电荷的定向移动形成电流。",
          options: ["正确", "错误"],
          answer: "正确",
          explanation: "这个说法是错误的：材料说的是电阻。",
          knowledgePointId: "k1",
          difficulty: "easy",
        },
      ],
    };
    expect(claimRules("quiz_generation", quiz)).toContain("item_true_false_explanation");
  });
  it("10. a question tagged with another point than the one it asks about", () => {
    const quiz: Quiz = {
      questions: [
        {
          type: "single_choice",
          stem: "什么是电阻？",
          options: ["导体对电流的阻碍作用", "电荷的定向移动"],
          answer: "导体对电流的阻碍作用",
          explanation: "材料原文如此。",
          knowledgePointId: "k1",
          difficulty: "easy",
        },
      ],
    };
    expect(claimRules("quiz_generation", quiz)).toContain("item_asks_its_point");
  });
  it("11. a card back that does not answer its front", () => {
    const deck: Flashcards = {
      flashcards: [
        { front: "什么是“电流”？", back: "导体对电流的阻碍作用叫做电阻。", knowledgePointId: "k1", tags: [] },
      ],
    };
    expect(claimRules("flashcard_generation", deck)).toContain("item_from_material");
    const fine: Flashcards = {
      flashcards: [{ front: "什么是“电流”？", back: "电荷的定向移动形成电流。", knowledgePointId: "k1", tags: [] }],
    };
    expect(claimRules("flashcard_generation", fine)).toEqual([]);
  });
  it("12. 预计记忆保持率 100% for a schedule holding a card forgotten at its latest review", () => {
    expect(
      claimRules("learning_state_analysis", state({ summary: "复习计划中有 4 张卡片，预计记忆保持率 100%。" })),
    ).toContain("claim_percent");
    // The offline summary states the learner model's retention, the forgotten card counting as not retained.
    expect(state().summary).toContain("预计记忆保持率 50%");
    expect(claimRules("learning_state_analysis", state())).toEqual([]);
  });
  it("13. counts in English words: 'three out of four answers wrong' about a point answered right", () => {
    expect(claimRules("learning_state_analysis", risk("k3", "Resistance: three out of four answers wrong"))).toContain(
      "claim_count",
    );
  });
  it("the offline analyzers' own outputs raise no claim", () => {
    for (const type of ["learning_state_analysis", "weak_point_analysis", "next_action_planning"] as const)
      for (const locale of ["zh-CN", "en"] as const)
        expect(
          claimRules(type, analyse(type, learner(), { timeBudgetMinutes: 60 }, AS_OF, locale)),
          `${type} ${locale}`,
        ).toEqual([]);
  });
});
