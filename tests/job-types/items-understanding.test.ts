import { describe, expect, it } from "vitest";
import { norm, type SnapshotContent } from "@/server/job-types/fields";
import { generateQuiz } from "@/server/job-types/quiz-generation/analyse";
import { generateFlashcards } from "@/server/job-types/flashcard-generation/analyse";
import { TEMPLATES } from "@/server/job-types/shared/templates";
import { sentences } from "@/server/job-types/shared/text";
import { negate, swapConcept, withoutNumbering } from "@/server/job-types/shared/items";
import type { Locale } from "@/server/i18n/locales";
import { LABELLED, type Labelled } from "./fixtures/kp-labelled";
import { TEXTBOOK } from "./fixtures/kp-textbook";

/**
 * The offline quiz and card generators over many materials in both languages (the two labelled
 * sets: 53 materials), each material's teacher's points as its knowledge points, titled as a
 * learner who accepted section headings would have them ("一、电流", "1. Electric current").
 */
const MATERIALS: Labelled[] = [...LABELLED, ...TEXTBOOK];
const ZH_NUMBERS = ["一", "二", "三", "四", "五", "六", "七", "八"];
const localeOf = (m: Labelled): Locale => (m.language === "zh" ? "zh-CN" : "en");

function snapshotOf(m: Labelled, numbered: boolean, titles = m.points.map((p) => p[0]!)): SnapshotContent {
  return {
    version: 1,
    learner: { id: "u1", name: "Ada" },
    target: { type: "user", id: "u1", title: "Ada" },
    materials: [{ id: "m1", title: m.language === "zh" ? "课本" : "Textbook", content: m.content }],
    knowledgePoints: titles.map((t, i) => ({
      id: `k${i}`,
      title: !numbered ? t : m.language === "zh" ? `${ZH_NUMBERS[i]}、${t}` : `${i + 1}. ${t}`,
      description: "",
      materialId: "m1",
    })),
    quizAttempts: [],
    studySessions: [],
  };
}

const cases = MATERIALS.flatMap((m) =>
  [false, true].map((numbered) => [`${m.id}${numbered ? " (numbered)" : ""}`, m, numbered] as const),
);

describe("true/false questions hold both values, the false ones made from the material", () => {
  it.each(cases)("%s", (_, m, numbered) => {
    const s = snapshotOf(m, numbered);
    const locale = localeOf(m);
    const [yes, no] = TEMPLATES[locale].quiz.trueFalse;
    const prefix = TEMPLATES[locale].quiz.trueOrFalse("");
    const said = sentences(m.content).filter((x) => /[.!?。！？]$/u.test(x));
    for (const count of [2, 3, 4, 6]) {
      const quiz = generateQuiz(s, { count, difficulty: "medium", questionTypes: ["true_false"] }, locale);
      const answers = quiz.questions.map((q) => q.answer);
      expect(answers, `${count} questions`).toContain(yes);
      expect(answers, `${count} questions`).toContain(no);
      for (const q of quiz.questions.filter((x) => x.answer === no)) {
        // A statement of the material changed (a term swapped or a definition negated), never one
        // of its true sentences shown under another name.
        const statement = q.stem.replace(prefix, "");
        for (const sentence of said) expect(statement, q.stem).not.toContain(sentence);
        expect(said.some((x) => q.explanation.includes(x)) || q.explanation.length > 0).toBe(true);
      }
    }
  });
});

describe("single-choice questions: the answer among the options, never given away by the stem", () => {
  it.each(cases)("%s", (_, m, numbered) => {
    const s = snapshotOf(m, numbered);
    const quiz = generateQuiz(
      s,
      { count: 20, difficulty: "hard", questionTypes: ["single_choice", "short_answer"] },
      localeOf(m),
    );
    const titles = new Map(s.knowledgePoints.map((k) => [k.id, k.title]));
    for (const q of quiz.questions.filter((x) => x.type === "single_choice")) {
      expect(
        q.options.filter((o) => o === q.answer),
        q.stem,
      ).toHaveLength(1);
      expect(new Set(q.options.map(norm)).size).toBe(q.options.length);
      const term = norm(withoutNumbering(titles.get(q.knowledgePointId)!));
      if ([...term].length >= 2 && norm(q.stem).includes(term)) expect(norm(q.answer), q.stem).not.toContain(term);
      // A blank hides every occurrence of its word.
      if (q.stem.includes("_____") && !q.options.some((o) => o.includes("_____")))
        expect(norm(q.stem), q.stem).not.toContain(norm(q.answer));
    }
  });
});

describe("flashcards: fronts ask about the concept, backs cover its section", () => {
  it.each(cases)("%s", (_, m, numbered) => {
    const s = snapshotOf(m, numbered);
    const cards = generateFlashcards(s, { count: 12 }, localeOf(m)).flashcards;
    for (const c of cards) {
      expect(c.front, c.front).toMatch(/[?？]|_{3,}/u);
      // No heading's numbering, in the front or in a quoted part of it.
      expect(c.front).not.toMatch(/(?:^|["“])\s*(?:[一二三四五六七八]、|\d+\.\s)/u);
      const title = s.knowledgePoints.find((k) => k.id === c.knowledgePointId)!.title;
      expect(norm(c.front)).not.toBe(norm(title));
    }
  });

  it("puts every sentence of a heading's section on the back of its card, in both languages", () => {
    for (const id of ["textbook-zh-electricity", "textbook-en-electricity"]) {
      const m = TEXTBOOK.find((x) => x.id === id)!;
      const s = snapshotOf(m, false);
      const cards = generateFlashcards(s, { count: 4 }, localeOf(m)).flashcards;
      const first = cards.find((c) => c.knowledgePointId === "k0")!;
      // The section under "一、电流" / "1. Electric current": its three sentences, not its first only.
      const section = m.content.split("\n")[1]!;
      for (const sentence of sentences(section)) expect(first.back, id).toContain(sentence);
      expect(first.front).toBe(id.includes("zh") ? "什么是“电流”？" : 'What is "electric current"?');
    }
  });

  it("asks about the concept, not its heading: 什么是“电流”？ for a point titled 一、电流", () => {
    const m = TEXTBOOK.find((x) => x.id === "textbook-zh-electricity")!;
    const cards = generateFlashcards(snapshotOf(m, true), { count: 8 }, "zh-CN").flashcards;
    expect(cards.map((c) => c.front)).toContain("什么是“电流”？");
    expect(cards.map((c) => c.front).join("")).not.toContain("一、电流");
  });
});

describe("false statements and distractors", () => {
  it("swaps a point's term for a sibling's, and negates or confuses a definition, in both languages", () => {
    expect(swapConcept("电荷的定向移动形成电流。", "电流", "电压")).toBe("电荷的定向移动形成电压。");
    expect(swapConcept("This property is called inertia.", "inertia", "mass")).toBe("This property is called mass.");
    expect(negate("导体对电流的阻碍作用叫做电阻。")).toBe("导体对电流的阻碍作用不叫做电阻。");
    expect(negate("电流跟电压成正比，跟电阻成反比。")).toBe("电流跟电压成反比，跟电阻成反比。");
    expect(negate("A catalyst is a substance that speeds up a reaction.")).toBe(
      "A catalyst is not a substance that speeds up a reaction.",
    );
    expect(negate("The current is directly proportional to the potential difference.")).toBe(
      "The current is inversely proportional to the potential difference.",
    );
  });

  it("offers the sibling most easily confused with the answer: 并联电路 for 串联电路, parallel circuit for series circuit", () => {
    for (const [m, answer, confusion, locale] of [
      [TEXTBOOK.find((x) => x.id === "textbook-zh-series-parallel")!, "串联电路", "并联电路", "zh-CN"],
      [TEXTBOOK.find((x) => x.id === "textbook-en-series-parallel")!, "series circuit", "parallel circuit", "en"],
    ] as const) {
      // Five points, the confusable one last: easy questions have three options.
      const titles = [
        answer,
        ...(locale === "en" ? ["branch", "total resistance", "current"] : ["干路", "支路", "用电器"]),
        confusion,
      ];
      const s = snapshotOf(m, false, titles);
      const quiz = generateQuiz(s, { count: 10, difficulty: "easy", questionTypes: ["single_choice"] }, locale);
      const named = quiz.questions.filter((q) => q.knowledgePointId === "k0" && q.answer === answer);
      expect(named.length, locale).toBeGreaterThan(0);
      for (const q of named) expect(q.options, q.stem).toContain(confusion);
    }
  });
});

describe("items from little or heading-numbered material", () => {
  const bare = (title: string, content: string): SnapshotContent => ({
    version: 1,
    learner: { id: "u1", name: "Ada" },
    target: { type: "user", id: "u1", title: "Ada" },
    materials: content ? [{ id: "m1", title: "Notes", content }] : [],
    knowledgePoints: [{ id: "k0", title, description: "", materialId: content ? "m1" : null }],
    quizAttempts: [],
    studySessions: [],
  });

  it("holds both values in true/false questions about one point with no sibling and no content, in both languages", () => {
    for (const locale of ["en", "zh-CN"] as const) {
      const [yes, no] = TEMPLATES[locale].quiz.trueFalse;
      for (const title of ["Qx7", "一、电流", "2.3 Electric current"])
        for (const count of [2, 3, 5]) {
          const quiz = generateQuiz(
            bare(title, ""),
            { count, difficulty: "easy", questionTypes: ["true_false"] },
            locale,
          );
          const answers = quiz.questions.map((q) => q.answer);
          expect(answers, `${locale} ${title} ${count}`).toContain(yes);
          expect(answers, `${locale} ${title} ${count}`).toContain(no);
        }
    }
  });

  it("never hides a word of a numbered heading line in a cloze card", () => {
    const content = [
      "2.3 Electric current and its measurement",
      "Electric current is the rate at which electric charge flows past a point in a circuit.",
      "An ammeter measures electric current and is connected in series with the component.",
    ].join("\n");
    const cards = generateFlashcards(bare("2.3 Electric current", content), { count: 10 }, "en").flashcards;
    for (const c of cards) expect(c.front, c.front).not.toMatch(/(?:^|["“])\s*2\.3\s/u);
    expect(cards.map((c) => c.front)).toContain('What is "Electric current"?');
  });
});
