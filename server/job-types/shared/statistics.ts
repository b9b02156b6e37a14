import type { SnapshotContent } from "../fields";

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

export type KpStats = {
  kp: KnowledgePoint;
  /** Newest first. */
  attempts: Attempt[];
  mastery: number;
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

export function confidenceOf(n: number) {
  return round3(n / (n + CONFIDENCE_HALF));
}

/** Per knowledge point, in snapshot order. Ties in time keep the snapshot's order, so results are stable. */
export function knowledgeStats(snapshot: SnapshotContent): KpStats[] {
  const byKp = new Map<string, Attempt[]>();
  snapshot.quizAttempts.forEach((a) => byKp.set(a.knowledgePointId, [...(byKp.get(a.knowledgePointId) ?? []), a]));
  return snapshot.knowledgePoints.map((kp) => {
    const attempts = [...(byKp.get(kp.id) ?? [])].sort((a, b) => Date.parse(b.answeredAt) - Date.parse(a.answeredAt));
    const recent = attempts.slice(0, RECENT_WINDOW);
    return {
      kp,
      attempts,
      mastery: recencyMastery(attempts),
      confidence: confidenceOf(attempts.length),
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

export function activityOf(snapshot: SnapshotContent, asOf: Date): Activity {
  const t = asOf.getTime();
  const times = [
    ...snapshot.studySessions.map((s) => Date.parse(s.startedAt)),
    ...snapshot.quizAttempts.map((a) => Date.parse(a.answeredAt)),
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

/** A knowledge point counts as weak when its mastery is below 0.6 or two of its three newest answers were wrong. */
export const WEAK_MASTERY = 0.6;
export function isWeak(s: KpStats) {
  return s.attempts.length > 0 && (s.mastery < WEAK_MASTERY || s.recentErrors >= 2);
}
/** Ranking: lower mastery first, each recent error adds 0.15. */
export function weakness(s: KpStats) {
  return 1 - s.mastery + 0.15 * s.recentErrors;
}
export function severityOf(s: KpStats): "low" | "medium" | "high" {
  return s.mastery < 0.35 ? "high" : s.mastery < WEAK_MASTERY ? "medium" : "low";
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
    .map((s, i) => ({ s, i, m: s.attempts.length ? s.mastery : 0.5 }))
    .sort((a, b) => a.m - b.m || a.i - b.i)
    .map(({ s }) => s);
}
