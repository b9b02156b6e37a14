import type { ReviewEvidence, SnapshotContent } from "../job-types/fields";

/** Each older answer weighs this much of the next newer one: the newest answer counts most. */
export const RECENCY_DECAY = 0.7;
/** confidence = n / (n + CONFIDENCE_HALF): 0 without answers, 0.5 at 3 answers, towards 1 with more. */
export const CONFIDENCE_HALF = 3;
/** Errors among this many newest answers count as "recent errors". */
export const RECENT_WINDOW = 3;
export const DAY_MS = 86_400_000;
/** Activity inside this window decides the engagement level. */
export const ENGAGEMENT_WINDOW_DAYS = 14;

export type Attempt = SnapshotContent["quizAttempts"][number];
export type KnowledgePoint = SnapshotContent["knowledgePoints"][number];

/** What the review log says about one knowledge point (snapshot.reviews). */
export type ReviewStats = ReviewEvidence["knowledgePoints"][number];

export type KpStats = {
  kp: KnowledgePoint;
  /** Its review evidence, when its cards are in the learner's schedule. */
  review?: ReviewStats;
  /** Newest first. */
  attempts: Attempt[];
  /** The point's mastery from all its evidence, answers and reviews together (masteryOf). */
  mastery: number;
  /** Recency-weighted share of correct answers alone (0 without answers). */
  quizMastery: number;
  /** Answers plus reviews: 0 when nothing says how well the learner knows the point. */
  evidence: number;
  confidence: number;
  recentErrors: number;
  recentCount: number;
};

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
export const pct = (x: number) => `${Math.round(x * 100)}%`;

/** Recency-weighted share of correct answers: weights 1, 0.7, 0.49, … from the newest answer back. */
export function recencyMastery(newestFirst: { correct: boolean }[]): number {
  let num = 0;
  let den = 0;
  newestFirst.forEach((a, i) => {
    const w = RECENCY_DECAY ** i;
    num += a.correct ? w : 0;
    den += w;
  });
  return den ? round3(num / den) : 0;
}

/**
 * What a point's reviews say of it, 0..1 (null before any review): the predicted recall, capped
 * by the share of reviews not rated Again, times the share of its cards not forgotten at their
 * latest review (FSRS counts recall in whole days, so a card failed today still reads 100 %: the
 * forgotten cards and the Again ratings are the evidence then).
 */
export function reviewRecall(r: ReviewStats | undefined): number | null {
  if (!r || r.reviews <= 0) return null;
  const passed = Math.max(0, r.reviews - r.again) / r.reviews;
  const kept = r.cards > 0 ? Math.max(0, r.cards - r.forgotten) / r.cards : 0;
  return round3(Math.min(r.retrievability ?? 1, passed) * kept);
}

/**
 * A knowledge point's mastery from all its evidence, the ONE definition every analysis, every
 * quality rule and the learner page's bars use: the recency-weighted share of correct answers
 * (weighted by the number of answers) and what its reviews say (reviewRecall, weighted by the
 * number of reviews), averaged; 0 with neither.
 */
export function masteryOf(newestFirst: { correct: boolean }[], review: ReviewStats | undefined): number {
  const n = newestFirst.length;
  const recall = reviewRecall(review);
  const m = recall === null ? 0 : review!.reviews;
  if (!n && !m) return 0;
  return round3((n * recencyMastery(newestFirst) + m * (recall ?? 0)) / (n + m));
}

/** Answers plus reviews of a point: how much evidence its mastery rests on. */
export const evidenceCount = (answers: number, review: ReviewStats | undefined) => answers + (review?.reviews ?? 0);

export function confidenceOf(n: number) {
  return round3(n / (n + CONFIDENCE_HALF));
}

/**
 * Per knowledge point, in snapshot order. Ties in time keep the snapshot's order, so results are
 * stable. Confidence grows with the evidence: answers and reviews.
 */
export function knowledgeStats(snapshot: SnapshotContent): KpStats[] {
  const byKp = new Map<string, Attempt[]>();
  snapshot.quizAttempts.forEach((a) => byKp.set(a.knowledgePointId, [...(byKp.get(a.knowledgePointId) ?? []), a]));
  const reviews = new Map((snapshot.reviews?.knowledgePoints ?? []).map((r) => [r.knowledgePointId, r]));
  return snapshot.knowledgePoints.map((kp) => {
    const attempts = [...(byKp.get(kp.id) ?? [])].sort((a, b) => Date.parse(b.answeredAt) - Date.parse(a.answeredAt));
    const recent = attempts.slice(0, RECENT_WINDOW);
    const review = reviews.get(kp.id);
    return {
      kp,
      ...(review ? { review } : {}),
      attempts,
      mastery: masteryOf(attempts, review),
      quizMastery: recencyMastery(attempts),
      evidence: evidenceCount(attempts.length, review),
      confidence: confidenceOf(evidenceCount(attempts.length, review)),
      recentErrors: recent.filter((a) => !a.correct).length,
      recentCount: recent.length,
    };
  });
}

export type Activity = {
  lastStudyAt: Date | null;
  daysSinceLastStudy: number | null;
  /** Session minutes plus 2 minutes per answered question inside the engagement window. */
  recentMinutes: number;
  minutesLast24h: number;
  engagement: "low" | "medium" | "high";
};

export const MINUTES_PER_ANSWER = 2;

/** Study sessions, answers and reviews (the last review of each knowledge point) count as study. */
export function activityOf(snapshot: SnapshotContent, asOf: Date): Activity {
  const t = asOf.getTime();
  const times = [
    ...snapshot.studySessions.map((s) => Date.parse(s.startedAt)),
    ...snapshot.quizAttempts.map((a) => Date.parse(a.answeredAt)),
    ...(snapshot.reviews?.knowledgePoints ?? []).flatMap((r) =>
      r.lastReviewedAt ? [Date.parse(r.lastReviewedAt)] : [],
    ),
  ].filter((x) => x <= t);
  const last = times.length ? Math.max(...times) : null;
  const within = (iso: string, days: number) => {
    const x = Date.parse(iso);
    return x <= t && x > t - days * DAY_MS;
  };
  const recentMinutes =
    snapshot.studySessions
      .filter((s) => within(s.startedAt, ENGAGEMENT_WINDOW_DAYS))
      .reduce((m, s) => m + s.minutes, 0) +
    MINUTES_PER_ANSWER * snapshot.quizAttempts.filter((a) => within(a.answeredAt, ENGAGEMENT_WINDOW_DAYS)).length;
  const minutesLast24h = snapshot.studySessions
    .filter((s) => within(s.startedAt, 1))
    .reduce((m, s) => m + s.minutes, 0);
  return {
    lastStudyAt: last === null ? null : new Date(last),
    daysSinceLastStudy: last === null ? null : Math.floor((t - last) / DAY_MS),
    recentMinutes,
    minutesLast24h,
    engagement: recentMinutes >= 120 ? "high" : recentMinutes >= 30 ? "medium" : "low",
  };
}

/** Predicted recall (FSRS retrievability) below this means the point is being forgotten. */
export const LOW_RECALL = 0.8;
/** Predicted recall at least this high, over at least REVIEWS_FOR_STRENGTH reviews, with no card forgotten last time: a strength. */
export const STRONG_RECALL = 0.9;
export const REVIEWS_FOR_STRENGTH = 2;

/** The review log says the point is slipping: a card was rated Again at its latest review, or predicted recall is low. */
export function isForgetting(r: ReviewStats | undefined): boolean {
  return !!r && (r.forgotten > 0 || (r.retrievability !== null && r.retrievability < LOW_RECALL));
}
export function isStrongRecall(r: ReviewStats | undefined): boolean {
  return (
    !!r &&
    r.forgotten === 0 &&
    r.reviews >= REVIEWS_FOR_STRENGTH &&
    r.retrievability !== null &&
    r.retrievability >= STRONG_RECALL
  );
}

/**
 * Predicted recall over the reviewed cards of these points, weighted by their cards, a card
 * forgotten at its latest review counting as not retained (FSRS counts recall in whole days, so a
 * card failed today would otherwise read 100 %). Null before any review.
 */
export function retentionOf(points: ReviewStats[]): number | null {
  const reviewed = points.filter((r) => r.retrievability !== null && r.cards > 0);
  const cards = reviewed.reduce((n, r) => n + r.cards, 0);
  if (!cards) return null;
  const kept = reviewed.reduce((m, r) => m + r.retrievability! * Math.max(0, r.cards - r.forgotten), 0);
  return round3(kept / cards);
}

/**
 * The predicted recall to quote, as a percentage: none before any review, and none when a card was
 * forgotten at its latest review (FSRS counts recall in whole days since the last review, so a card
 * failed today still reads 100 %; the forgotten cards are the evidence then).
 */
export function recallOf(r: ReviewStats): string | null {
  return r.retrievability === null || r.forgotten > 0 ? null : pct(r.retrievability);
}

/** Mastery below this: weak. */
export const WEAK_MASTERY = 0.6;
/** Mastery at least this high, over at least EVIDENCE_FOR_STRENGTH answers and reviews, and not weak: strong. */
export const STRONG_MASTERY = 0.8;
export const EVIDENCE_FOR_STRENGTH = 2;
/** Errors among the RECENT_WINDOW newest answers that make a point weak whatever its mastery. */
export const RECENT_ERRORS_WEAK = 2;

/**
 * A point's band, the ONE verdict every analysis, every rule and every learner view reads:
 * `weak` when it is being forgotten in reviews; else `unknown` without any answer or review; `weak` when its
 * mastery (masteryOf: answers and reviews together) is below WEAK_MASTERY, or two of its three
 * newest answers are wrong; `strong` when, not weak, its mastery is at least STRONG_MASTERY over
 * at least two answers and reviews; `middle` otherwise. Exclusive: no point is both.
 */
export type Band = "unknown" | "weak" | "middle" | "strong";
export function bandOf(s: KpStats): Band {
  if (isForgetting(s.review)) return "weak";
  if (!s.evidence) return "unknown";
  if (s.mastery < WEAK_MASTERY || s.recentErrors >= RECENT_ERRORS_WEAK) return "weak";
  return s.evidence >= EVIDENCE_FOR_STRENGTH && s.mastery >= STRONG_MASTERY ? "strong" : "middle";
}
export const isWeak = (s: KpStats) => bandOf(s) === "weak";
export const isStrong = (s: KpStats) => bandOf(s) === "strong";

/**
 * Ranking: lower mastery first (0.5 for a point without evidence), each recent error adds 0.15;
 * being forgotten adds 0.25 and each lapse 0.1 (up to three).
 */
export function weakness(s: KpStats) {
  const base = s.evidence ? 1 - s.mastery + 0.15 * s.recentErrors : 0.5;
  return base + (isForgetting(s.review) ? 0.25 : 0) + 0.1 * Math.min(s.review?.lapses ?? 0, 3);
}
export const LEVELS = ["low", "medium", "high"] as const;
export type Level = (typeof LEVELS)[number];
/** Mastery below this is severe. */
export const SEVERE_MASTERY = 0.35;
/**
 * By mastery from all the evidence (low without any), one level more severe when the point is
 * being forgotten, and at least medium when a card was forgotten at its latest review.
 */
export function severityOf(s: KpStats): Level {
  const base = !s.evidence ? 0 : s.mastery < SEVERE_MASTERY ? 2 : s.mastery < WEAK_MASTERY ? 1 : 0;
  const level = Math.min(2, base + (isForgetting(s.review) ? 1 : 0));
  return LEVELS[Math.max(level, s.review?.forgotten ? 1 : 0)]!;
}

/** Weak points, weakest first; equal scores keep the snapshot's order. */
export function rankWeak(stats: KpStats[]) {
  return stats
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => isWeak(s))
    .sort((a, b) => weakness(b.s) - weakness(a.s) || a.i - b.i)
    .map(({ s }) => s);
}

/** Weakest knowledge points first, so a quiz or a deck spends its questions where the learner needs them. */
export function quizOrder(stats: KpStats[]) {
  return stats
    .map((s, i) => ({ s, i, m: s.evidence ? s.mastery : 0.5 }))
    .sort((a, b) => a.m - b.m || a.i - b.i)
    .map(({ s }) => s);
}
