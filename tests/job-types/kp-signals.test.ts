import { describe, expect, it } from "vitest";
import type { SnapshotContent } from "@/server/job-types/fields";
import { extractKnowledgePoints } from "@/server/job-types/knowledge-point-extraction/analyse";
import { definitionsIn, headingTopics, withoutNumbering } from "@/server/job-types/knowledge-point-extraction/signals";

function snapshotOf(content: string): SnapshotContent {
  return {
    version: 1,
    learner: { id: "u1", name: "Ada" },
    target: { type: "material", id: "m1", title: "Notes" },
    materials: [{ id: "m1", title: "Notes", content }],
    knowledgePoints: [],
    quizAttempts: [],
    studySessions: [],
  };
}
const titles = (content: string, maxPoints = 8) =>
  extractKnowledgePoints(snapshotOf(content), { maxPoints }).knowledgePoints.map((p) => p.title);
const terms = (sentence: string, lineStart = false) => definitionsIn(sentence, lineStart).found.map((d) => d.term);

const NEWTON_ZH =
  "牛顿第一定律：一切物体在没有受到外力作用的时候，总保持静止状态或匀速直线运动状态。物体保持原来运动状态不变的这种性质叫做惯性。\n" +
  "牛顿第二定律：物体加速度的大小跟作用力成正比，跟物体的质量成反比。\n" +
  "牛顿第三定律：两个物体之间的作用力和反作用力总是大小相等，方向相反，作用在同一条直线上。";
const NEWTON_EN =
  "Newton's first law: an object at rest stays at rest and an object in motion stays in motion unless a net force acts on it. This property is called inertia.\n" +
  "Newton's second law: the acceleration of an object equals the net force on it divided by its mass.\n" +
  "Newton's third law: for every action there is an equal and opposite reaction.";

describe("knowledge-point proposals: Newton's three laws", () => {
  it("proposes inertia and the three laws in Chinese, never 牛顿, 外力作用, 定律 or 物体", () => {
    const t = titles(NEWTON_ZH);
    expect(t).toEqual(expect.arrayContaining(["惯性", "牛顿第一定律", "牛顿第二定律", "牛顿第三定律"]));
    for (const generic of ["牛顿", "外力作用", "定律", "物体"]) expect(t).not.toContain(generic);
    // A fixed pair joined by 和 (作用力 and its counterpart 反作用力) is one point, whole.
    expect(t).toContain("作用力和反作用力");
    expect(t).not.toContain("反作用力");
  });

  it("proposes inertia and the three laws in English, never Law, Net force, Property or Object", () => {
    const t = titles(NEWTON_EN);
    expect(t).toEqual(
      expect.arrayContaining(["Inertia", "Newton's first law", "Newton's second law", "Newton's third law"]),
    );
    for (const generic of ["Law", "Net force", "Property", "Object"]) expect(t).not.toContain(generic);
  });
});

describe("knowledge-point proposals: definitions", () => {
  it("reads the term a Chinese definition names, after 叫做 / 称为 / 史称 and before 是指 / 即 / 定义为", () => {
    expect(terms("物体保持原来运动状态不变的这种性质叫做惯性。")).toEqual(["惯性"]);
    expect(terms("同种生物同一性状的不同表现形式称为相对性状，例如豌豆的高茎和矮茎。")).toEqual(["相对性状"]);
    expect(terms("天气是指一个地方短时间里的大气状况。")).toEqual(["天气"]);
    expect(terms("在物理学中，速度定义为路程与时间之比。")).toEqual(["速度"]);
    expect(terms("惯性即物体保持原有运动状态不变的性质。")).toEqual(["惯性"]);
    expect(terms("1898年，光绪帝宣布变法，史称戊戌变法，又称百日维新。")).toEqual(["戊戌变法"]);
    // An alias names a point already named: never a point of its own.
    expect(definitionsIn("生成其他物质的变化叫做化学变化，又叫化学反应。", false).aliases).toEqual(["化学反应"]);
  });

  it("reads the term an English definition names: is called, is known as, is defined as, refers to, X is a …", () => {
    expect(terms("This property is called inertia.")).toEqual(["inertia"]);
    expect(terms("Atoms of the same element with different numbers of neutrons are known as isotopes.")).toEqual([
      "isotopes",
    ]);
    expect(terms("The Earth's crust is broken into large pieces called tectonic plates, which move slowly.")).toEqual([
      "tectonic plates",
    ]);
    expect(terms("Climate is defined as the average weather of a place over 30 years.")).toEqual(["Climate"]);
    expect(terms("Weather refers to the day-to-day condition of the atmosphere.")).toEqual(["Weather"]);
    expect(terms("An acid is a substance that produces hydrogen ions in water.")).toEqual(["acid"]);
    expect(terms("The position of an organism in a food chain is called its trophic level.")).toEqual([
      "trophic level",
    ]);
    // A verb, not a definition: a king calls an assembly.
    expect(terms("In 1789 King Louis XVI called the Estates-General to deal with the crisis.")).toEqual([]);
    // "also called" gives another name for the same point.
    expect(
      definitionsIn("The gradient m, also called the slope, measures how steep the line is.", false),
    ).toMatchObject({
      found: [],
      aliases: ["slope"],
    });
  });

  it("reads a glossary line's term at the start of a line", () => {
    expect(terms("Kinetic energy: Ek = ½mv², where m is the mass.", true)).toEqual(["Kinetic energy"]);
    expect(terms("1. 纬度位置：纬度越低，气温越高。", true)).toEqual(["纬度位置"]);
    expect(terms("Osmosis – the diffusion of water through a partially permeable membrane.", true)).toEqual([
      "Osmosis",
    ]);
    expect(terms("蒸腾作用——水分以气体状态散失到大气中的过程。", true)).toEqual(["蒸腾作用"]);
  });

  it("reads the items of a list a sentence announces with its count", () => {
    expect(terms("汽化有两种方式：蒸发和沸腾。")).toEqual(["蒸发", "沸腾"]);
    expect(terms("There are three types of rock: igneous, sedimentary and metamorphic rock.")).toEqual([
      "igneous rock",
      "sedimentary rock",
      "metamorphic rock",
    ]);
  });

  it("reads a term set in bold", () => {
    expect(terms("Water moves into the cell by **osmosis** when the cytoplasm is more concentrated.")).toEqual([
      "osmosis",
    ]);
    expect(titles("Water moves into root hair cells by **osmosis**. Minerals need **active transport**.")).toEqual(
      expect.arrayContaining(["Osmosis", "Active transport"]),
    );
  });
});

describe("knowledge-point proposals: headings", () => {
  it("strips a heading's numbering", () => {
    expect(withoutNumbering("一、电流")).toBe("电流");
    expect(withoutNumbering("1.2 Ohm's law")).toBe("Ohm's law");
    expect(withoutNumbering("第三节 欧姆定律")).toBe("欧姆定律");
    expect(withoutNumbering("（二）电压")).toBe("电压");
    expect(withoutNumbering("Chapter 4: Acids")).toBe("Acids");
  });

  it("splits A和B / A与B / A and B in two, unless B is A's counterpart or the heading is about its topics", () => {
    expect(headingTopics("二、串联电路和并联电路")).toEqual(["串联电路", "并联电路"]);
    expect(headingTopics("酸与碱")).toEqual(["酸", "碱"]);
    expect(headingTopics("Acids and bases")).toEqual(["Acids", "bases"]);
    expect(headingTopics("Series and parallel circuits")).toEqual(["Series circuits", "parallel circuits"]);
    expect(headingTopics("作用力和反作用力")).toEqual(["作用力和反作用力"]);
    expect(headingTopics("Action and reaction")).toEqual(["Action and reaction"]);
    expect(headingTopics("八、探究电流与电压、电阻的关系")).toEqual(["探究电流与电压、电阻的关系"]);
  });

  it("proposes numbered headings without their numbers, and a heading of two topics as two points", () => {
    const t = titles(
      "一、电流\n电荷的定向移动形成电流，电流的单位是安培。\n二、电压\n电压是形成电流的原因。\n" +
        "三、串联电路和并联电路\n用电器逐个顺次连接的电路是串联电路，用电器并列连接的电路是并联电路。",
    );
    expect(t).toEqual(expect.arrayContaining(["电流", "电压", "串联电路", "并联电路"]));
    expect(t.filter((x) => /^[一二三]、/.test(x) || x.includes("和"))).toEqual([]);
    const en = titles(
      "1.1 Ohm's law\nOhm's law states that the current through a conductor is proportional to the voltage.",
    );
    expect(en).toContain("Ohm's law");
    expect(en).not.toContain("1.1 Ohm's law");
  });
});

describe("knowledge-point proposals: ranked over the whole text", () => {
  it("keeps a definition at the end of a text whose headings alone fill maxPoints", () => {
    const sections = Array.from(
      { length: 10 },
      (_, i) =>
        `Topic ${String.fromCharCode(65 + i)}\nThis section talks about topic ${String.fromCharCode(65 + i)} for a while longer.`,
    ).join("\n");
    const t = titles(`${sections}\nThe tendency of an object to keep its motion is called inertia.`, 5);
    expect(t).toHaveLength(5);
    expect(t).toContain("Inertia");
  });
});
