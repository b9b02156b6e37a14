import { describe, expect, it } from "vitest";
import { duplicates, graphemes, norm, text } from "@/server/job-types/fields";
import { checkOutput } from "@/server/jobs/quality";
import { grade } from "@/server/job-types/quiz-generation/grading";
import { runQualityChecks } from "@/server/pipeline/quality-checks";
import { clip } from "@/server/job-types/shared/text";
import { smallSnapshot } from "./fixtures";

const kpIds = new Set(smallSnapshot().knowledgePoints.map((k) => k.id));
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const question = (stem: string, extra: Record<string, unknown> = {}) => ({
  type: "single_choice",
  stem,
  options: ["叶绿素", "线粒体"],
  answer: "叶绿素",
  explanation: "叶绿素吸收光能。",
  knowledgePointId: "kp_a",
  difficulty: "easy",
  ...extra,
});
const quizParams = { count: 2, difficulty: "mixed", questionTypes: ["single_choice", "true_false"] };

describe("quality rules on Chinese text", () => {
  it("norm: full-width forms, spaces between Chinese characters and the final punctuation do not make a text new", () => {
    expect(norm("什么是光合作用？")).toBe(norm("什么是 光合作用?"));
    expect(norm("ＡＢＣ１２３")).toBe("abc123");
    expect(norm("光合作用（定义）")).toBe(norm("光合作用(定义)"));
    expect(norm("叶绿素　吸收光能。")).toBe("叶绿素吸收光能");
    // English keeps its spaces between words.
    expect(norm("Light  Reactions?")).toBe("light reactions");
    expect(norm("light reactions")).not.toBe(norm("lightreactions"));
    expect(duplicates(["什么是光合作用？", "什么是 光合作用?", "什么是暗反应？"])).toEqual(["什么是光合作用"]);
  });

  it("a quiz whose stems differ only in full-width punctuation and spacing is refused duplicate_stem (it slipped through before)", () => {
    const out = { questions: [question("哪一项描述了“光反应”？"), question("哪一项描述了 “光反应”?")] };
    const check = checkOutput("quiz_generation", "v1", out, { knowledgePointIds: kpIds, params: quizParams });
    expect(check.ok).toBe(false);
    if (!check.ok)
      expect(check.violations).toContainEqual(
        expect.objectContaining({ path: "questions.1.stem", rule: "duplicate_stem" }),
      );
  });

  it("options that are the same word in full-width and half-width forms repeat; the answer matches its full-width twin", () => {
    const repeat = {
      questions: [question("甲？", { options: ["ＡＴＰ", "ATP", "NADPH"], answer: "ATP" }), question("乙？")],
    };
    const check = checkOutput("quiz_generation", "v1", repeat, { knowledgePointIds: kpIds, params: quizParams });
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.violations.map((v) => v.rule)).toContain("options_repeat");
    expect(grade(question("甲？", { answer: "ATP" }) as never, "ＡＴＰ")).toBe(true);
    expect(
      grade(question("甲？", { type: "short_answer", options: [], answer: "叶绿素" }) as never, "是 叶绿素。"),
    ).toBe(true);
  });

  it("flashcard fronts that differ only in width and spacing are duplicates", () => {
    const card = (front: string) => ({ front, back: "叶绿素", knowledgePointId: "kp_a", tags: [] });
    const check = checkOutput(
      "flashcard_generation",
      "v1",
      { flashcards: [card("什么是叶绿素？"), card("什么是 叶绿素?")] },
      { knowledgePointIds: kpIds, params: { count: 2 } },
    );
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.violations).toContainEqual(expect.objectContaining({ rule: "duplicate_front" }));
  });

  it("lengths count characters as a reader does: 300 rare CJK characters fit a 300-character title (they failed before)", () => {
    const rare = "𠀀".repeat(300); // CJK Extension B: two UTF-16 units each
    expect(rare.length).toBe(600);
    expect(graphemes(rare)).toBe(300);
    expect(text(300).safeParse(rare).success).toBe(true);
    const over = text(300).safeParse(`${rare}𠀀`);
    expect(over.success).toBe(false);
    expect(over.error?.issues[0]).toMatchObject({ code: "too_big", maximum: 300 });
    // A family emoji is one character; a grapheme stacking endless combining marks is still refused.
    expect(text(3).safeParse("👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧").success).toBe(true);
    expect(text(10).safeParse(`a${"\u0301".repeat(100)}`).success).toBe(false);
    const out = { flashcards: [{ front: rare, back: "x", knowledgePointId: "kp_a", tags: [] }] };
    expect(checkOutput("flashcard_generation", "v1", out, { knowledgePointIds: kpIds, params: { count: 1 } }).ok).toBe(
      true,
    );
  });

  it("clip cuts on a character boundary: never half a surrogate pair, and within the schema's limit", () => {
    for (const s of ["𠀀".repeat(400), "👩🏽‍🔬".repeat(400), `a${"𠀀".repeat(400)}`]) {
      const cut = clip(s, 300);
      expect(cut).not.toMatch(LONE_SURROGATE);
      expect(cut.endsWith("…")).toBe(true);
      expect(text(300).safeParse(cut).success).toBe(true);
    }
  });

  it("review: a Chinese true/false question may offer 正确/错误 (it was sent round the quality loop before)", () => {
    const tf = (options: string[], answer: string) => ({
      questions: [question("判断正误：叶绿素吸收光能。", { type: "true_false", options, answer })],
    });
    const review = (output: unknown, locale?: "en" | "zh-CN") =>
      runQualityChecks({
        jobType: "quiz_generation",
        output,
        snapshot: smallSnapshot(),
        params: {},
        locale,
        attempt: 1,
      });
    expect(review(tf(["正确", "错误"], "正确"), "zh-CN")).toEqual({ ok: true });
    expect(review(tf(["True", "False"], "True"), "zh-CN")).toEqual({ ok: true });
    expect(review(tf(["True", "False"], "True"), "en")).toEqual({ ok: true });
    expect(review(tf(["对的", "不对"], "对的"), "zh-CN")).toMatchObject({ ok: false });
    expect(review(tf(["正确", "错误"], "正确"), "en")).toMatchObject({ ok: false });
  });
});
