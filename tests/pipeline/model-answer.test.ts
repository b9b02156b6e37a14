import { describe, expect, it } from "vitest";
import { paramsSchemas } from "@/server/job-types";
import type { SnapshotContent } from "@/server/jobs/schemas";
import type { Quiz } from "@/server/job-types/quiz-generation";
import { checkOutput } from "@/server/jobs/quality";
import { analyse } from "@/server/providers/local";
import { AS_OF } from "./fixtures";

const CONDITION = "浸没在液体中的物体，当浮力大于重力时上浮；当浮力小于重力时下沉；当浮力等于重力时悬浮。";
/** A buoyancy lesson with a heading per point, as a teacher writes it. */
function buoyancy(description = ""): SnapshotContent {
  const content = [
    "浮力",
    "浮力是浸在液体或气体中的物体受到的向上托的力。",
    "物体的浮沉条件",
    CONDITION,
    "阿基米德原理",
    "浸在液体中的物体受到的浮力等于它排开的液体所受的重力。",
  ].join("\n");
  return {
    version: 1,
    learner: { id: "u", name: "小红" },
    target: { type: "user", id: "u", title: "小红" },
    materials: [{ id: "m1", title: "浮力", content }],
    knowledgePoints: [
      { id: "kp_f", title: "浮力", description: "", materialId: "m1" },
      { id: "kp_c", title: "物体的浮沉条件", description, materialId: "m1" },
      { id: "kp_a", title: "阿基米德原理", description: "", materialId: "m1" },
    ],
    quizAttempts: [],
    studySessions: [],
  } as SnapshotContent;
}

const freeAnswers = (snapshot: SnapshotContent) => {
  const params = paramsSchemas.quiz_generation.parse({ count: 6, questionTypes: ["short_answer"] });
  const quiz = analyse("quiz_generation", snapshot, params, AS_OF, "zh-CN") as Quiz;
  const free = quiz.questions.filter((q) => q.stem.startsWith("请用自己的话"));
  // The explanation quotes the same passage, never another sentence.
  for (const q of free) expect(q.explanation).toContain(q.answer);
  return new Map(free.map((q) => [q.knowledgePointId, q.answer]));
};

describe("a free question's model answer is what the material says about its point", () => {
  it("物体的浮沉条件: the condition under its heading, not the first sentence naming 物体", () => {
    const answers = freeAnswers(buoyancy());
    expect(answers.get("kp_c")).toBe(CONDITION);
    expect(answers.get("kp_a")).toBe("浸在液体中的物体受到的浮力等于它排开的液体所受的重力。");
  });

  it("a description the material does not support is not the model answer", () => {
    expect(freeAnswers(buoyancy("浮力是浸在液体或气体中的物体受到的向上托的力。")).get("kp_c")).toBe(CONDITION);
    expect(freeAnswers(buoyancy("当浮力大于重力时上浮，当浮力小于重力时下沉。")).get("kp_c")).toBe(
      "当浮力大于重力时上浮，当浮力小于重力时下沉。",
    );
  });

  it("a provider's model answer that is not the point's passage breaks model_answer_unsupported", () => {
    const snapshot = buoyancy();
    const question = (answer: string) => ({
      questions: [
        {
          type: "short_answer",
          stem: "请用自己的话解释“物体的浮沉条件”。",
          options: [],
          answer,
          explanation: "见教材。",
          knowledgePointId: "kp_c",
          difficulty: "easy",
        },
      ],
    });
    const check = (answer: string) =>
      checkOutput("quiz_generation", "v2", question(answer), {
        knowledgePointIds: new Set(snapshot.knowledgePoints.map((k) => k.id)),
        params: { count: 1, questionTypes: ["short_answer"] },
        snapshot,
      });
    const wrong = check("浮力是浸在液体或气体中的物体受到的向上托的力。");
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.violations.map((v) => v.rule)).toEqual(["model_answer_unsupported"]);
    expect(check("当浮力大于重力时物体上浮，小于重力时下沉，等于重力时悬浮。").ok).toBe(true);
    // A term is graded by the app, not held to the passage.
    expect(check("上浮").ok).toBe(true);
  });
});
