import type { SnapshotContent } from "../../fields";
import { retentionOf, type KpStats } from "../../shared/statistics";
import { quotableFigures, type Evidence } from "../finding";

/**
 * What a sentence may be held to: the answers (newest first) and review counts of one point, or
 * of the learner as a whole, with the percentages and counts it may quote.
 */
export type Facts = {
  label: string;
  /** Newest first. */
  answers: { correct: boolean }[];
  reviews: number;
  again: number;
  forgotten: number;
  lapses: number;
  cards: number;
  due: number;
  /** Percentages (fractions) the sentence may quote. */
  percents: number[];
  /** Other counts it may state (points practised, points in all). */
  counts: number[];
};

export function pointFacts(s: KpStats): Facts {
  const r = s.review;
  const n = s.attempts.length;
  const right = s.attempts.filter((a) => a.correct).length;
  return {
    label: `"${s.kp.title}"`,
    answers: s.attempts,
    reviews: r?.reviews ?? 0,
    again: r?.again ?? 0,
    forgotten: r?.forgotten ?? 0,
    lapses: r?.lapses ?? 0,
    cards: r?.cards ?? 0,
    due: r?.dueCards ?? 0,
    percents: [...quotableFigures(s), ...(n ? [(n - right) / n, 1 - s.quizMastery] : [])],
    counts: [],
  };
}

/**
 * The learner as a whole: every answer, the schedule's totals, today's counts (now, later today,
 * held back), the overall mastery and the schedule's retention — the learner model's figures the
 * summary prints (retentionOf: a card forgotten at its latest review counts as not retained).
 */
export function learnerFacts(snapshot: SnapshotContent, ev: Evidence): Facts {
  const points = snapshot.reviews?.knowledgePoints ?? [];
  const sum = (f: (r: (typeof points)[number]) => number) => points.reduce((n, r) => n + f(r), 0);
  const known = ev.stats.filter((s) => s.evidence > 0);
  const overall = known.length ? known.reduce((m, s) => m + s.mastery, 0) / known.length : 0;
  const retention = retentionOf(points);
  const today = snapshot.reviews?.today;
  return {
    label: "the learner",
    answers: [...snapshot.quizAttempts].sort((a, b) => Date.parse(b.answeredAt) - Date.parse(a.answeredAt)),
    reviews: sum((r) => r.reviews),
    again: sum((r) => r.again),
    forgotten: sum((r) => r.forgotten),
    lapses: sum((r) => r.lapses),
    cards: sum((r) => r.cards),
    due: sum((r) => r.dueCards),
    percents: [overall, ...(retention !== null ? [retention] : [])],
    counts: [known.length, ev.stats.length, ...(today ? [today.now, today.laterToday, today.heldBack] : [])],
  };
}
