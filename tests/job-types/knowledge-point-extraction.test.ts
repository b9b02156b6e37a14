import { afterEach, describe, expect, it } from "vitest";
import { groundedIn, type KpExtraction } from "@/server/job-types/knowledge-point-extraction";
import { norm, type SnapshotContent } from "@/server/job-types/fields";
import { checkOutput } from "@/server/jobs/quality";
import { runPipeline } from "@/server/pipeline/run-pipeline";
import { deepseekProvider } from "@/server/providers/deepseek";
import { analyse } from "@/server/providers/local";
import { extractKnowledgePoints } from "@/server/job-types/knowledge-point-extraction/analyse";
import type { Locale } from "@/server/i18n/locales";
import { startFakeOpenAI } from "../providers/fake-openai-server";
import { AS_OF, materialSnapshot, smallSnapshot } from "../pipeline/fixtures";

const TYPE = "knowledge_point_extraction";

function snapshotOf(content: string, knowledgePoints: SnapshotContent["knowledgePoints"] = []): SnapshotContent {
  return {
    ...smallSnapshot(),
    target: { type: "material", id: "m9", title: "Notes" },
    materials: [{ id: "m9", title: "Notes", content }],
    knowledgePoints,
    quizAttempts: [],
  };
}

/** Through the registry (the local provider's `analyse`), or with the learner's language given. */
const extract = (s: SnapshotContent, maxPoints = 8, locale?: Locale) =>
  locale ? extractKnowledgePoints(s, { maxPoints }, locale) : (analyse(TYPE, s, { maxPoints }, AS_OF) as KpExtraction);
const check = (s: SnapshotContent | null, output: unknown, maxPoints = 8) =>
  checkOutput(TYPE, "v1", output, { knowledgePointIds: new Set(), params: { maxPoints }, snapshot: s });

const ENGLISH = `# Photosynthesis

Photosynthesis turns light energy into chemical energy stored in glucose. It runs in the chloroplasts of plant cells.

## Light reactions
In the thylakoid membranes, chlorophyll absorbs light, splits water and releases oxygen. The light reactions make ATP and NADPH.

## Calvin cycle
In the stroma, the enzyme RuBisCO fixes carbon dioxide. The Calvin cycle spends ATP and NADPH to build glucose from carbon dioxide.

Limiting factors are light intensity, carbon dioxide concentration and temperature. When carbon dioxide is scarce, the Calvin cycle slows down.`;

const CHINESE = `光合作用
光合作用是植物利用光能把二氧化碳和水转化为葡萄糖的过程。光合作用在叶绿体中进行。

光反应
叶绿素吸收光能，把水分解并释放氧气。光反应产生ATP和NADPH。

暗反应又称卡尔文循环。卡尔文循环在叶绿体基质中进行，固定二氧化碳并合成葡萄糖。二氧化碳浓度、光照强度和温度是影响光合作用的主要因素。`;

describe("knowledge_point_extraction: the local analyzer", () => {
  it("proposes the sections of an English material, each grounded in its text, with no duplicate titles", () => {
    const s = snapshotOf(ENGLISH);
    const out = extract(s);
    expect(check(s, out)).toEqual({ ok: true, output: out });
    const titles = out.knowledgePoints.map((p) => p.title);
    // The sections, in the material's order among the other points.
    expect(titles.filter((t) => ["Photosynthesis", "Light reactions", "Calvin cycle"].includes(t))).toEqual([
      "Photosynthesis",
      "Light reactions",
      "Calvin cycle",
    ]);
    expect(titles[0]).toBe("Photosynthesis");
    expect(new Set(titles.map(norm)).size).toBe(titles.length);
    for (const p of out.knowledgePoints) {
      // Verbatim: an exact substring of the material, not only "grounded" after whitespace is removed.
      expect(ENGLISH).toContain(p.passage);
      expect(p.summary).not.toMatch(/\n/);
      expect(p.keyTerms.length).toBeGreaterThan(0);
    }
    const light = out.knowledgePoints.find((p) => p.title === "Light reactions")!;
    // The sentence it is read from, then the next one of its section; the summary says it in a line of its own.
    expect(
      light.passage.startsWith(
        "In the thylakoid membranes, chlorophyll absorbs light, splits water and releases oxygen.",
      ),
    ).toBe(true);
    for (const p of out.knowledgePoints) expect(norm(p.summary)).not.toBe(norm(p.passage));
    // The material's noun phrases are the key terms (carbon dioxide, whole; "the" never counts).
    expect(out.knowledgePoints.flatMap((p) => p.keyTerms.map((k) => k.toLowerCase()))).toContain("carbon dioxide");
    expect(out.knowledgePoints.flatMap((p) => p.keyTerms)).not.toContain("the");
  });

  it("segments Chinese text (no spaces between words) into sentences and terms", () => {
    const s = snapshotOf(CHINESE);
    const out = extract(s, 6);
    expect(check(s, out, 6)).toEqual({ ok: true, output: out });
    const titles = out.knowledgePoints.map((p) => p.title);
    expect(titles[0]).toBe("光合作用");
    expect(titles).toContain("光反应");
    expect(out.knowledgePoints.length).toBeLessThanOrEqual(6);
    expect(new Set(titles).size).toBe(titles.length);
    for (const p of out.knowledgePoints) expect(CHINESE).toContain(p.passage);
    expect(out.knowledgePoints[0]!.passage.startsWith("光合作用是植物利用光能把二氧化碳和水转化为葡萄糖的过程。")).toBe(
      true,
    );
    // A definition turned round: the term, then what it is.
    expect(out.knowledgePoints[0]!.summary).toBe("光合作用：植物利用光能把二氧化碳和水转化为葡萄糖的过程");
    // Words, not the whole run of characters: 二氧化碳 is a term of its own.
    expect(out.knowledgePoints.flatMap((p) => p.keyTerms)).toContain("二氧化碳");
  });

  it("is pure, keeps to maxPoints, and proposes what the material already has under its own title", () => {
    const s = snapshotOf(ENGLISH, [{ id: "k1", title: "Light REACTION", description: "", materialId: "m9" }]);
    expect(extract(s, 2)).toEqual(extract(s, 2));
    expect(extract(s, 2).knowledgePoints).toHaveLength(2);
    // Shown as already chosen on a second suggestion, not dropped: the existing point's title, singular or plural.
    const titles = extract(s, 20).knowledgePoints.map((p) => p.title);
    expect(titles).toContain("Light REACTION");
    expect(titles).not.toContain("Light reactions");
  });

  it("makes a point of a material without headings or recurring terms, and says its fixed words in the learner's language", () => {
    const s = snapshotOf("ok ok ok ok ok ok ok ok ok ok ok ok.");
    expect(extract(s, 3, "en").knowledgePoints.map((p) => p.title)).toEqual(["Point 1"]);
    expect(extract(s, 3, "zh-CN").knowledgePoints.map((p) => p.title)).toEqual(["要点 1"]);
    expect(check(s, extract(s, 3))).toMatchObject({ ok: true });
  });

  it("refuses a snapshot whose target is not a material (INVALID_SNAPSHOT)", () => {
    expect(() => extract(smallSnapshot())).toThrow(expect.objectContaining({ code: "INVALID_SNAPSHOT" }));
  });
});

describe("knowledge_point_extraction: the API's quality rules", () => {
  const s = materialSnapshot();
  const point = (title: string, passage: string) => ({ title, summary: "One line.", keyTerms: ["light"], passage });

  it("accepts passages quoted across re-flowed whitespace", () => {
    const out = { knowledgePoints: [point("Light", "Photosynthesis  turns\nlight energy into chemical energy.")] };
    expect(check(s, out)).toMatchObject({ ok: true });
    expect(groundedIn("光合作用\n是过程", "光合作用是过程")).toBe(true);
    expect(groundedIn("abc", "  ")).toBe(false);
  });

  it("refuses an invented passage, a duplicate title and too many points, naming each", () => {
    const out = {
      knowledgePoints: [
        point("Light", "Photosynthesis turns light energy into chemical energy."),
        point(" LIGHT ", "Plants dream of electric sheep."),
        point("Calvin", "the enzyme RuBisCO fixes carbon dioxide"),
      ],
    };
    const r = check(s, out, 2);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.violations.map((v) => [v.path, v.rule])).toEqual([
      ["knowledgePoints", "too_many_points"],
      ["knowledgePoints.1.title", "duplicate_title"],
      ["knowledgePoints.1.passage", "passage_not_grounded"],
    ]);
  });

  it("refuses every passage when the job's target is not a material, or the snapshot is missing", () => {
    const out = { knowledgePoints: [point("Light", "Photosynthesis turns light energy into chemical energy.")] };
    for (const snap of [smallSnapshot(), null]) {
      const r = check(snap, out);
      expect(!r.ok && r.violations.map((v) => v.rule)).toEqual(["passage_not_grounded"]);
    }
  });
});

describe("knowledge_point_extraction through DeepSeek (a real HTTP fake)", () => {
  let close: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await close?.();
    close = null;
  });

  it("sends the type's task, sends the review's findings back, and returns the grounded answer", async () => {
    const s = snapshotOf(ENGLISH);
    const invented = {
      knowledgePoints: [{ title: "Light", summary: "x y", keyTerms: ["light"], passage: "Made up." }],
    };
    const good = extract(s, 3);
    const fake = await startFakeOpenAI([{ content: JSON.stringify(invented) }, { content: JSON.stringify(good) }]);
    close = fake.close;
    const result = await runPipeline(
      { jobType: TYPE, params: { maxPoints: 3 }, snapshot: s, asOf: AS_OF },
      { provider: deepseekProvider({ apiKey: "sk-test", baseURL: fake.url }) },
    );
    expect(result).toMatchObject({ degraded: false, qualityLoops: 1, provider: "deepseek" });
    expect(result.output).toEqual(good);
    const [first, second] = fake.requests.map((r) => r.body.messages as { role: string; content: string }[]);
    // The type's task comes after the learner's snapshot, in the user message (shared prefix first).
    expect(first![1]!.content).toContain("copied character for character");
    expect(first![1]!.content).toContain("Propose at most 3 knowledge points.");
    expect(first![1]!.content.indexOf("copied character")).toBeGreaterThan(
      first![1]!.content.indexOf("</learner_data>"),
    );
    // The answer language is the job's (English by default), and the passage stays a quote whatever it is.
    expect(first![0]!.content).toContain("in English (en)");
    expect(first![1]!.content).toContain("thylakoid");
    expect(second![1]!.content).toContain("knowledgePoints.0.passage");
  });
});
