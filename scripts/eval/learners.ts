import type { Locale } from "../../server/i18n/locales";
import type { SnapshotContent } from "../../server/job-types/fields";

/**
 * Seeded synthetic learners for the analyses' evaluation (`npm run eval:analyses`): the same seed
 * always gives the same learners. Each is one of six profiles, in English or Chinese, with review
 * evidence that could come from a real schedule (forgotten ≤ again ≤ reviews, due ≤ cards).
 */
export const PROFILES = [
  "no_data",
  "all_wrong",
  "all_forgotten",
  "long_history",
  "many_points",
  "mixed_reviews",
] as const;
export type Profile = (typeof PROFILES)[number];
export type Learner = { id: string; profile: Profile; locale: Locale; snapshot: SnapshotContent; asOf: Date };

/** mulberry32: a small, fast, seeded generator. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof rng>;

const TOPICS = {
  en: [
    ["Electric current", "Electric current is the rate at which charge flows through a conductor."],
    ["Voltage", "Voltage is the difference in electric potential that drives a current."],
    ["Resistance", "Resistance is the opposition of a conductor to the flow of current."],
    ["Inertia", "Inertia is the property of an object to keep its state of motion."],
    [
      "Newton's first law",
      "Newton's first law states that an object stays at rest or in uniform motion unless a net force acts.",
    ],
    [
      "Photosynthesis",
      "Photosynthesis is the process by which plants turn light, water and carbon dioxide into glucose.",
    ],
    ["Covalent bond", "A covalent bond is a chemical bond formed by sharing electron pairs between atoms."],
    ["Oxidation", "Oxidation is the loss of electrons by an atom, ion or molecule."],
    ["Series circuit", "In a series circuit the same current flows through every component in turn."],
    ["Parallel circuit", "In a parallel circuit each branch shares the same voltage across it."],
    ["Acceleration", "Acceleration is the rate of change of velocity over time."],
    ["Molar mass", "Molar mass is the mass of one mole of a substance."],
  ],
  "zh-CN": [
    ["电流", "电荷的定向移动形成电流，电流的大小用电流强度表示。"],
    ["电压", "电压是使电路中形成电流的原因，电源是提供电压的装置。"],
    ["电阻", "导体对电流的阻碍作用叫做电阻，电阻的单位是欧姆。"],
    ["惯性", "物体保持原来运动状态不变的性质叫做惯性。"],
    ["牛顿第一定律", "一切物体在没有受到外力作用时，总保持静止状态或匀速直线运动状态。"],
    ["光合作用", "绿色植物利用光能把二氧化碳和水转化成储存能量的有机物，这个过程叫做光合作用。"],
    ["共价键", "原子间通过共用电子对所形成的相互作用叫做共价键。"],
    ["氧化反应", "物质与氧发生的化学反应叫做氧化反应。"],
    ["串联电路", "把电路元件逐个顺次连接起来的电路叫做串联电路。"],
    ["并联电路", "把电路元件并列连接起来的电路叫做并联电路。"],
    ["加速度", "加速度是速度变化量与发生这一变化所用时间的比值。"],
    ["摩尔质量", "单位物质的量的物质所具有的质量叫做摩尔质量。"],
  ],
} as const;
const NUMBERING = {
  en: ["", "", "1. ", "2.3 ", "Chapter 4: "],
  "zh-CN": ["", "", "一、", "（二）", "第三节 "],
} as const;
const DAY = 86_400_000;

function points(r: Rng, locale: Locale, n: number) {
  const topics = TOPICS[locale];
  return Array.from({ length: n }, (_, i) => {
    const [title, description] = topics[i % topics.length]!;
    const round = Math.floor(i / topics.length);
    const numbered = `${r.pick(NUMBERING[locale])}${title}${round ? ` ${round + 1}` : ""}`;
    return { id: `kp-${i}`, title: numbered, description, materialId: "mat-1" };
  });
}

function attempts(
  r: Rng,
  kps: { id: string; title: string }[],
  per: [number, number],
  pCorrect: number,
  asOf: number,
  spanDays: number,
) {
  return kps.flatMap((k) =>
    Array.from({ length: r.int(per[0], per[1]) }, (_, j) => ({
      knowledgePointId: k.id,
      question: `${k.title} #${j + 1}`,
      correct: r.chance(pCorrect),
      answeredAt: new Date(asOf - r.int(0, spanDays * 24) * 3_600_000).toISOString(),
    })),
  );
}

type Shape = { pReviewed: number; reviews: [number, number]; pAgain: number; pForgotten: number };
function reviews(r: Rng, kps: { id: string }[], asOf: number, s: Shape): SnapshotContent["reviews"] {
  const list = kps
    .filter(() => r.chance(s.pReviewed))
    .map((k) => {
      const cards = r.int(1, 6);
      const n = r.int(s.reviews[0], s.reviews[1]);
      const again = Math.min(n, Array.from({ length: n }, () => r.chance(s.pAgain)).filter(Boolean).length);
      const reviewedCards = Math.min(cards, n);
      const forgotten = Math.min(
        again,
        reviewedCards,
        Array.from({ length: reviewedCards }, () => r.chance(s.pForgotten)).filter(Boolean).length,
      );
      return {
        knowledgePointId: k.id,
        cards,
        dueCards: r.int(0, cards),
        reviews: n,
        again,
        forgotten,
        lapses: r.int(0, again),
        retrievability: n ? Math.round((forgotten ? r.int(85, 100) : r.int(40, 100)) * 10) / 1000 : null,
        lastReviewedAt: n ? new Date(asOf - r.int(0, 30 * 24) * 3_600_000).toISOString() : null,
      };
    });
  return list.length
    ? { asOf: new Date(Math.floor(asOf / DAY) * DAY + DAY).toISOString(), knowledgePoints: list }
    : undefined;
}

/** One learner of a profile. */
export function learner(seed: number, profile: Profile, locale: Locale): Learner {
  const r = rng(seed);
  const asOf = Date.UTC(2026, 10, 1 + r.int(0, 30), r.int(0, 23));
  const nPoints = {
    no_data: r.int(0, 4),
    all_wrong: r.int(1, 8),
    all_forgotten: r.int(1, 8),
    long_history: r.int(3, 12),
    many_points: r.int(120, 400),
    mixed_reviews: r.int(2, 12),
  }[profile];
  const kps = points(r, locale, nPoints);
  const quiz =
    profile === "no_data"
      ? []
      : profile === "all_wrong"
        ? attempts(r, kps, [1, 5], 0, asOf, 14)
        : profile === "all_forgotten"
          ? attempts(r, kps, [0, 4], 0.8, asOf, 20)
          : profile === "long_history"
            ? attempts(r, kps, [20, 80], r.next(), asOf, 200)
            : profile === "many_points"
              ? attempts(r, kps, [0, 3], r.next(), asOf, 30)
              : attempts(r, kps, [0, 6], r.next(), asOf, 40);
  const shape: Record<Profile, Shape | null> = {
    no_data: null,
    all_wrong: r.chance(0.5) ? { pReviewed: 0.5, reviews: [1, 4], pAgain: 1, pForgotten: 1 } : null,
    all_forgotten: { pReviewed: 1, reviews: [1, 6], pAgain: 0.7, pForgotten: 1 },
    long_history: { pReviewed: 0.9, reviews: [10, 120], pAgain: r.next() * 0.4, pForgotten: 0.2 },
    many_points: { pReviewed: 0.4, reviews: [0, 5], pAgain: 0.3, pForgotten: 0.3 },
    mixed_reviews: { pReviewed: 0.8, reviews: [0, 10], pAgain: r.next(), pForgotten: 0.4 },
  };
  const s = shape[profile];
  const content = kps.map((k) => `${k.title}\n${k.description}`).join("\n\n");
  return {
    id: `learner-${seed}`,
    profile,
    locale,
    asOf: new Date(asOf),
    snapshot: {
      version: 1,
      learner: { id: `u-${seed}`, name: locale === "en" ? `Learner ${seed}` : `学习者${seed}` },
      target: { type: "user", id: `u-${seed}`, title: "all" },
      materials: kps.length ? [{ id: "mat-1", title: locale === "en" ? "Science notes" : "科学笔记", content }] : [],
      knowledgePoints: kps,
      quizAttempts: quiz,
      studySessions:
        profile === "no_data"
          ? []
          : Array.from({ length: r.int(0, 6) }, () => ({
              materialId: "mat-1",
              startedAt: new Date(asOf - r.int(0, 20 * 24) * 3_600_000).toISOString(),
              minutes: r.int(5, 90),
            })),
      ...(s && kps.length ? { reviews: reviews(r, kps, asOf, s) } : {}),
    },
  };
}

/** `count` learners from `seed`: the profiles and both languages in turn. */
export function learners(count: number, seed = 1): Learner[] {
  return Array.from({ length: count }, (_, i) =>
    learner(seed * 100_003 + i, PROFILES[i % PROFILES.length]!, i % 2 === 0 ? "en" : "zh-CN"),
  );
}
