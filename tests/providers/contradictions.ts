import type { JobTypeName } from "@/server/job-types";
import type { LearningAnalysis } from "@/server/job-types/learning-state-analysis";
import type { NextActions } from "@/server/job-types/next-action-planning";
import { analyse } from "@/server/providers/local";
import { AS_OF } from "../pipeline/fixtures";
import { tour } from "../job-types/tour";

/**
 * Each contradiction of the learner tour, as a model could write it about the tour's learner
 * (tests/job-types/tour.ts), with an answer that fixes it: what the fake OpenAI-compatible
 * server answers in the tests that show the quality stage catching each one.
 */
export type Contradiction = {
  name: string;
  jobType: JobTypeName;
  params: Record<string, unknown>;
  /** The evidence rule that catches it. */
  rule: string;
  bad: unknown;
  good: unknown;
};

const state = () => analyse("learning_state_analysis", tour(), {}, AS_OF, "zh-CN") as LearningAnalysis;
const plan = () => analyse("next_action_planning", tour(), { timeBudgetMinutes: 120 }, AS_OF, "zh-CN") as NextActions;
const question = (stem: string, answer: string, type: "single_choice" | "true_false") => ({
  type,
  stem,
  options: type === "true_false" ? ["正确", "错误"] : [answer, "导体对电流的阻碍作用", "电荷的无规则运动"],
  answer,
  explanation: "电荷的定向移动形成电流。",
  knowledgePointId: "k1",
  difficulty: "easy",
});
const card = (front: string) => ({
  flashcards: [{ front, back: "电荷的定向移动形成电流。", knowledgePointId: "k1", tags: [] }],
});

export function contradictions(): Contradiction[] {
  const s = state();
  const p = plan();
  const k1Review = p.actions.find((a) => a.target.id === "k1")!;
  return [
    {
      name: "the best point is one forgotten at its last review (掌握最好：一、电流)",
      jobType: "learning_state_analysis",
      params: {},
      rule: "forgotten_strength",
      bad: { ...s, strongestKnowledgePointId: "k1", summary: `${s.summary}掌握最好：一、电流（100%）。` },
      good: s,
    },
    {
      name: "a point both a strength and a risk",
      jobType: "learning_state_analysis",
      params: {},
      rule: "strength_and_risk",
      bad: {
        ...s,
        strengths: [...s.strengths, { knowledgePointId: "k2", text: "二、电压：复习 2 次，预计记忆保持率 100 %" }],
        risks: [...s.risks, { knowledgePointId: "k2", text: "二、电压：掌握度 0 %，最近 1 次作答错了 1 次" }],
      },
      good: s,
    },
    {
      name: "100 % recall quoted for a card failed minutes before",
      jobType: "learning_state_analysis",
      params: {},
      rule: "quoted_percent",
      bad: {
        ...s,
        risks: s.risks.map((r) =>
          r.knowledgePointId === "k5" ? { ...r, text: "五、电功率：复习 3 次，预计记忆保持率 100 %" } : r,
        ),
      },
      good: s,
    },
    {
      name: "mastery bars that ignore the review log",
      jobType: "learning_state_analysis",
      params: {},
      rule: "mastery_band",
      bad: {
        ...s,
        knowledgePoints: s.knowledgePoints.map((k) => (k.knowledgePointId === "k1" ? { ...k, mastery: 1 } : k)),
      },
      good: s,
    },
    {
      name: "the plan lists one point twice (复习X and 复习X的 1 张到期卡片)",
      jobType: "next_action_planning",
      params: { timeBudgetMinutes: 120 },
      rule: "point_once_per_action",
      bad: {
        actions: [...p.actions, { ...k1Review, title: "复习“一、电流”", dueCards: undefined, estimatedMinutes: 5 }],
      },
      good: p,
    },
    {
      name: "cards called due that the Review view shows due later",
      jobType: "next_action_planning",
      params: { timeBudgetMinutes: 120 },
      rule: "due_count",
      bad: {
        actions: [
          ...p.actions,
          {
            actionType: "review",
            target: { type: "knowledge_point", id: "k2" },
            title: "复习“二、电压”的 1 张到期卡片",
            reason: "1 张卡片到期待复习。",
            priority: 2,
            estimatedMinutes: 5,
          },
        ],
      },
      good: p,
    },
    {
      name: "every true/false question is true",
      jobType: "quiz_generation",
      params: { count: 2, questionTypes: ["true_false"], difficulty: "easy" },
      rule: "true_false_both",
      bad: {
        questions: [
          question("判断正误：电荷的定向移动形成电流。", "正确", "true_false"),
          question("判断正误：电流的方向与电子移动方向相同。", "正确", "true_false"),
        ],
      },
      good: {
        questions: [
          question("判断正误：电荷的定向移动形成电流。", "正确", "true_false"),
          question("判断正误：电流的方向与电子移动方向相同。", "错误", "true_false"),
        ],
      },
    },
    {
      name: "the right option repeats the topic's own words",
      jobType: "quiz_generation",
      params: { count: 1, questionTypes: ["single_choice"], difficulty: "easy" },
      rule: "answer_repeats_key_term",
      bad: { questions: [question("下列哪一项描述了“电流”？", "电流是电荷的定向移动", "single_choice")] },
      good: { questions: [question("下列哪一项描述了“电流”？", "电荷的定向移动", "single_choice")] },
    },
    {
      name: "a flashcard front that is the section heading (什么是“一、电流”？)",
      jobType: "flashcard_generation",
      params: { count: 1 },
      rule: "front_is_heading",
      bad: card("什么是“一、电流”？"),
      good: card("电荷怎样移动就形成了电流？"),
    },
  ];
}
