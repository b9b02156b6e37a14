import type { Locale } from "../../i18n/locales";
import type { SnapshotContent } from "../fields";
import { knowledgeStats, type KpStats } from "../shared/statistics";

/** One broken evidence rule: which rule, where in the output (dot path), in words the model can act on. */
export type Finding = { rule: string; path: string; message: string };

export type EvidenceContext = {
  snapshot: SnapshotContent;
  params: Record<string, unknown>;
  locale: Locale;
  /** The output's schema version (a v1 learning-state result names no points in its strengths and risks). */
  version: string;
};

/** A job type's evidence rules: rule name → what it asks (the docs' table), and the check. */
export type EvidenceRules<O = never> = {
  rules: Record<string, string>;
  check(output: O, ctx: EvidenceContext, stats: Evidence): Finding[];
};

/** How far an output's mastery may stray from masteryOf (answers and reviews together). */
export const MASTERY_BAND = 0.15;
/** How far a percentage quoted in a sentence may stray from the evidence's figure (rounding). */
export const PERCENT_TOLERANCE = 0.02;

/** The snapshot's per-point statistics, by id (computed once per check). */
export type Evidence = { stats: KpStats[]; byId: Map<string, KpStats> };
export function evidenceOf(snapshot: SnapshotContent): Evidence {
  const stats = knowledgeStats(snapshot);
  return { stats, byId: new Map(stats.map((s) => [s.kp.id, s])) };
}

/** The percentages a sentence quotes, as fractions ("75 %", "75%", "75％", "12.5 %"). */
export function percentsIn(text: string): number[] {
  return [...text.matchAll(/(\d{1,3}(?:\.\d+)?)\s*[%％]/gu)].map((m) => Number(m[1]) / 100);
}

/**
 * The figures a sentence about a point may quote as percentages: its mastery (masteryOf), the
 * recency-weighted and the plain share of correct answers (when it has answers), and its
 * predicted recall, unless a card was forgotten at its latest review (then FSRS's whole-day
 * recall still reads 100 % and would contradict the failure).
 */
export function quotableFigures(s: KpStats): number[] {
  const r = s.review;
  return [
    s.mastery,
    ...(s.attempts.length ? [s.quizMastery, s.attempts.filter((a) => a.correct).length / s.attempts.length] : []),
    ...(r && r.retrievability !== null && !r.forgotten ? [r.retrievability] : []),
  ];
}

/** The percentages of `text` that match none of the point's figures. */
export function unsupportedPercents(text: string, s: KpStats): number[] {
  const figures = quotableFigures(s);
  return percentsIn(text).filter((p) => !figures.some((f) => Math.abs(f - p) <= PERCENT_TOLERANCE));
}

export const fmtPct = (x: number) => `${Math.round(x * 1000) / 10} %`;

/**
 * The counts a sentence states about a point, in the ways the analyses say them, each with what
 * the evidence says: its answers ("over 3 answers", "共作答 3 次"), its reviews ("2 reviews",
 * "复习 2 次") and its newest answers' errors ("2 of the last 3 answers wrong", "最近 3 次作答错了 2 次").
 */
export function wrongCounts(text: string, s: KpStats): string[] {
  const reviews = s.review?.reviews ?? 0;
  const checks: { re: RegExp; expect: (m: RegExpMatchArray) => [number, number][] }[] = [
    {
      re: /(\d+) of the last (\d+) answers? wrong/giu,
      expect: (m) => [
        [+m[1]!, s.recentErrors],
        [+m[2]!, s.recentCount],
      ],
    },
    {
      re: /最近\s*(\d+)\s*次作答错了\s*(\d+)\s*次/gu,
      expect: (m) => [
        [+m[1]!, s.recentCount],
        [+m[2]!, s.recentErrors],
      ],
    },
    { re: /over (\d+) answers?\b/giu, expect: (m) => [[+m[1]!, s.attempts.length]] },
    { re: /共作答\s*(\d+)\s*次/gu, expect: (m) => [[+m[1]!, s.attempts.length]] },
    { re: /(\d+) reviews?\b/giu, expect: (m) => [[+m[1]!, reviews]] },
    { re: /复习\s*(\d+)\s*次/gu, expect: (m) => [[+m[1]!, reviews]] },
  ];
  return checks.flatMap(({ re, expect }) =>
    [...text.matchAll(re)].flatMap((m) => (expect(m).some(([said, is]) => said !== is) ? [`"${m[0]}"`] : [])),
  );
}

/** The evidence's counts of a point, in words, for a finding. */
export const countsOf = (s: KpStats) =>
  `${s.attempts.length} answers (${s.recentErrors} of the last ${s.recentCount} wrong), ${s.review?.reviews ?? 0} reviews`;
