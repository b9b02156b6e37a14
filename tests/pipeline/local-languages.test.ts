import { describe, expect, it } from "vitest";
import { JOB_TYPES, paramsSchemas, type JobTypeName } from "@/server/job-types";
import type { SnapshotContent } from "@/server/jobs/schemas";
import type { Flashcards } from "@/server/job-types/flashcard-generation";
import type { Quiz } from "@/server/job-types/quiz-generation";
import { LOCALES } from "@/server/i18n/locales";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import { analyse, localProvider } from "@/server/providers/local";
import { TEMPLATES } from "@/server/job-types/shared/templates";
import { keyword, sentences } from "@/server/job-types/shared/text";
import { AS_OF, smallSnapshot } from "./fixtures";

const HAN = /\p{Script=Han}/u;
/** Words of the English templates that must never appear in a Chinese result about English material. */
const ENGLISH_TEMPLATE_WORDS =
  /\b(Mastery|mastery|answers|Review|Practise|Learn|Which|True or false|Fill in the blank|What is|Explain|Engagement|Strongest|Re-read|practised)\b/;
const PARAMS: Record<JobTypeName, Record<string, unknown>> = {
  learning_state_analysis: {},
  weak_point_analysis: {},
  next_action_planning: { timeBudgetMinutes: 120 },
  quiz_generation: { count: 8, questionTypes: ["single_choice", "true_false", "short_answer"] },
  flashcard_generation: { count: 8 },
  knowledge_point_extraction: { maxPoints: 4 },
};
/** Proposes knowledge points by quoting the material: its words are the material's own, in the material's language. */
const QUOTING = new Set<JobTypeName>(["knowledge_point_extraction"]);

/** The texts a learner reads in an output (every string but ids, enums and the snapshot's own titles). */
function texts(jobType: JobTypeName, out: Record<string, unknown>): string[] {
  const o = out as never as {
    summary: string;
    strengths: { text: string }[];
    risks: { text: string }[];
    weakPoints: { evidence: string[]; suggestedReview: string }[];
    actions: { title: string; reason: string }[];
    questions: { stem: string; explanation: string; type: string; options: string[] }[];
    flashcards: { front: string; tags: string[] }[];
    knowledgePoints: { title: string; passage: string }[];
  };
  switch (jobType) {
    case "learning_state_analysis":
      return [o.summary, ...o.strengths.map((x) => x.text), ...o.risks.map((x) => x.text)];
    case "weak_point_analysis":
      return o.weakPoints.flatMap((w) => [...w.evidence.slice(0, 2), w.suggestedReview]);
    case "next_action_planning":
      return o.actions.flatMap((a) => [a.title, a.reason]);
    case "quiz_generation":
      return o.questions.flatMap((q) => [q.stem, ...(q.type === "true_false" ? q.options : [])]);
    case "flashcard_generation":
      return o.flashcards.map((c) => c.front);
    case "knowledge_point_extraction":
      return o.knowledgePoints.flatMap((k) => [k.title, k.passage]);
    default:
      return [];
  }
}

/** 李明's material, as the seed has it: Chinese throughout, no spaces between words. */
function chineseSnapshot(target: "user" | "material" = "user"): SnapshotContent {
  const at = (day: number) => new Date(Date.UTC(2026, 10, day, 9)).toISOString();
  return {
    version: 1,
    learner: { id: "u2", name: "李明" },
    target:
      target === "user" ? { type: "user", id: "u2", title: "李明" } : { type: "material", id: "m1", title: "光合作用" },
    materials: [
      {
        id: "m1",
        title: "光合作用",
        content:
          "光合作用是绿色植物利用光能把二氧化碳和水转化为有机物的过程。光反应在类囊体薄膜上进行，叶绿素吸收光能并释放氧气。暗反应在叶绿体基质中进行，二氧化碳被固定并合成葡萄糖。光照强度、二氧化碳浓度和温度都会影响光合速率。",
      },
    ],
    knowledgePoints: [
      { id: "kp_a", title: "光反应", description: "叶绿素吸收光能，分解水并释放氧气。", materialId: "m1" },
      { id: "kp_b", title: "暗反应", description: "在叶绿体基质中固定二氧化碳，合成葡萄糖。", materialId: "m1" },
      { id: "kp_c", title: "影响因素", description: "光照强度、二氧化碳浓度和温度影响光合速率。", materialId: "m1" },
    ],
    quizAttempts: [
      { knowledgePointId: "kp_b", question: "暗反应在哪里进行？", correct: false, answeredAt: at(19) },
      { knowledgePointId: "kp_a", question: "光反应释放什么？", correct: true, answeredAt: at(18) },
      { knowledgePointId: "kp_b", question: "暗反应合成什么？", correct: false, answeredAt: at(18) },
      { knowledgePointId: "kp_a", question: "叶绿素吸收什么？", correct: true, answeredAt: at(17) },
    ],
    studySessions: [{ materialId: "m1", startedAt: at(19), minutes: 30 }],
  };
}

describe("the local analyzer writes in the job's language", () => {
  for (const jobType of JOB_TYPES.filter((t) => !QUOTING.has(t))) {
    it(`${jobType}: Chinese for zh-CN, English for en, from the same English snapshot`, () => {
      const params = paramsSchemas[jobType].parse(PARAMS[jobType]);
      const zh = analyse(jobType, smallSnapshot(), params, AS_OF, "zh-CN") as Record<string, unknown>;
      const en = analyse(jobType, smallSnapshot(), params, AS_OF, "en") as Record<string, unknown>;
      const zhTexts = texts(jobType, zh);
      expect(zhTexts.length).toBeGreaterThan(0);
      for (const t of zhTexts) {
        expect(t, t).toMatch(HAN);
        expect(t, t).not.toMatch(ENGLISH_TEMPLATE_WORDS);
      }
      for (const t of texts(jobType, en)) expect(t, t).not.toMatch(HAN);
      // The default is English, as before the language existed.
      expect(analyse(jobType, smallSnapshot(), params, AS_OF)).toEqual(en);
    });
  }

  it("knowledge_point_extraction quotes Chinese material in Chinese whatever the job's language", () => {
    const params = paramsSchemas.knowledge_point_extraction.parse(PARAMS.knowledge_point_extraction);
    const zh = texts(
      "knowledge_point_extraction",
      analyse("knowledge_point_extraction", chineseSnapshot("material"), params, AS_OF, "zh-CN") as never,
    );
    const en = texts(
      "knowledge_point_extraction",
      analyse("knowledge_point_extraction", chineseSnapshot("material"), params, AS_OF, "en") as never,
    );
    expect(zh.length).toBeGreaterThan(0);
    for (const t of zh) expect(t, t).toMatch(HAN);
    expect(en).toEqual(zh);
  });

  it("true/false questions offer 正确 and 错误 in Chinese, True and False in English", () => {
    const params = paramsSchemas.quiz_generation.parse({ count: 4, questionTypes: ["true_false"] });
    const zh = analyse("quiz_generation", chineseSnapshot(), params, AS_OF, "zh-CN") as Quiz;
    const en = analyse("quiz_generation", chineseSnapshot(), params, AS_OF, "en") as Quiz;
    for (const q of zh.questions) {
      expect(q.options).toEqual(["正确", "错误"]);
      expect(q.options).toContain(q.answer);
    }
    for (const q of en.questions) expect(q.options).toEqual(["True", "False"]);
  });

  const ITEMS = new Set<JobTypeName>(["quiz_generation", "flashcard_generation"]);
  it.each([
    ["the analyses and proposals", JOB_TYPES.filter((t) => !ITEMS.has(t))],
    ["quizzes and decks", JOB_TYPES.filter((t) => ITEMS.has(t))],
  ])(
    "on Chinese material, %s pass the API's rules, the pipeline's quality checks and the evidence rules in both languages, never degraded",
    async (_name, types) => {
      for (const locale of LOCALES)
        for (const jobType of types) {
          const params = paramsSchemas[jobType].parse(PARAMS[jobType]);
          const result = await runPipeline(
            {
              jobType,
              params,
              snapshot: chineseSnapshot(QUOTING.has(jobType) ? "material" : "user"),
              asOf: AS_OF,
              locale,
            },
            { provider: localProvider() },
          );
          expect(result.degraded, `${locale} ${jobType}: ${result.findings.join("; ")}`).toBe(false);
          if (locale === "zh-CN") for (const t of texts(jobType, result.output)) expect(t).toMatch(HAN);
        }
    },
  );

  it("cuts Chinese material into sentences at 。！？ and hides a word, not a clause, in a cloze", () => {
    const snapshot = chineseSnapshot();
    const found = sentences(snapshot.materials[0]!.content);
    // Before: no whitespace after 。 meant one 110-character "sentence".
    expect(found).toHaveLength(4);
    expect(found[0]).toBe("光合作用是绿色植物利用光能把二氧化碳和水转化为有机物的过程。");
    const word = keyword(found[0]!)!;
    expect(word.length).toBeGreaterThanOrEqual(2);
    expect(word.length).toBeLessThanOrEqual(6);
    expect(found[0]).toContain(word);
    // English keeps its rule: the longest word of 5+ letters.
    expect(keyword("Chlorophyll absorbs light and splits water.")).toBe("Chlorophyll");

    const cards = analyse("flashcard_generation", snapshot, { count: 12 }, AS_OF, "zh-CN") as Flashcards;
    const cloze = cards.flashcards.filter((c) => c.front.startsWith("哪个词填入空白处："));
    expect(cloze.length).toBeGreaterThan(0);
    for (const c of cloze) {
      expect(c.front).toContain("_____");
      // The blank hides a few characters, the rest of the sentence stays readable.
      expect(c.front.replace("哪个词填入空白处：", "").replace("_____", "").length).toBeGreaterThan(5);
    }
  });

  it("every language has every template (a missing one would not compile; this checks they differ)", () => {
    const zh = TEMPLATES["zh-CN"];
    expect(zh.quiz.trueFalse).not.toEqual(TEMPLATES.en.quiz.trueFalse);
    expect(zh.nextActions.restTitle).toMatch(HAN);
    expect(zh.learningState.practised("李明", 1, 2, 3, "50%")).toBe(
      "李明已练习 2 个知识点中的 1 个（共作答 3 次），总体掌握度为 50%。",
    );
  });
});
