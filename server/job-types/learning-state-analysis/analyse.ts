import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import type { LearningAnalysis } from "./schema";
import {
  activityOf,
  isForgetting,
  knowledgeStats,
  pct,
  recallOf,
  round3,
  type KpStats,
  type ReviewStats,
} from "../shared/statistics";
import { templatesFor } from "../shared/templates";
import { clip, titleOf } from "../shared/text";

/** Mastery (answers and reviews together) at least this high, over at least two answers or reviews, with nothing being forgotten: a strength. */
export const STRONG_MASTERY = 0.8;
export const EVIDENCE_FOR_STRENGTH = 2;
/** Mastery below this is a risk. */
export const RISK_MASTERY = 0.5;

/** A strength: well known by all its evidence, and nothing of it being forgotten. */
export const isStrength = (s: KpStats) =>
  s.evidence >= EVIDENCE_FOR_STRENGTH && s.mastery >= STRONG_MASTERY && !isForgetting(s.review);
/** A risk: being forgotten in reviews, known poorly by all its evidence, or never practised. */
export const isRisk = (s: KpStats) => isForgetting(s.review) || s.mastery < RISK_MASTERY || !s.evidence;

/**
 * learning_state_analysis from the snapshot's quiz history, study sessions and review evidence,
 * written in the job's language. Every point's mastery is masteryOf (answers and reviews
 * together); a point is a strength or a risk, never both; a point being forgotten is a risk and
 * never the strongest.
 */
export function analyseLearningState(snapshot: SnapshotContent, asOf: Date, locale: Locale = "en"): LearningAnalysis {
  const T = templatesFor(locale);
  const L = T.learningState;
  const stats = knowledgeStats(snapshot);
  const activity = activityOf(snapshot, asOf);
  const known = stats.filter((s) => s.evidence > 0);
  const overall = known.length ? round3(known.reduce((m, s) => m + s.mastery, 0) / known.length) : 0;
  const answers = stats.reduce((n, s) => n + s.attempts.length, 0);

  const strengths = stats.filter(isStrength).map((s) => ({
    knowledgePointId: s.kp.id,
    text: clip(
      s.attempts.length
        ? L.strength(titleOf(s.kp), pct(s.mastery), s.attempts.length, s.review?.reviews ?? 0)
        : L.recallStrength(titleOf(s.kp), pct(s.mastery), s.review!.reviews),
      300,
    ),
  }));
  const risks = [
    ...stats.filter((s) => isForgetting(s.review)).map((s) => risk(s, forgetting(L, titleOf(s.kp), s.review!))),
    ...known
      .filter((s) => !isForgetting(s.review) && s.mastery < RISK_MASTERY)
      .map((s) =>
        risk(
          s,
          s.attempts.length
            ? L.risk(titleOf(s.kp), pct(s.mastery), s.recentErrors, s.recentCount)
            : L.lowRecall(titleOf(s.kp), pct(s.mastery), s.review?.reviews ?? 0, s.review?.again ?? 0),
        ),
      ),
    ...stats.filter((s) => !s.evidence).map((s) => risk(s, L.notPractised(titleOf(s.kp)))),
    ...(activity.engagement === "low" ? [{ knowledgePointId: null, text: L.littleStudy(activity.recentMinutes) }] : []),
    ...(activity.daysSinceLastStudy !== null && activity.daysSinceLastStudy >= 7
      ? [{ knowledgePointId: null, text: L.away(activity.daysSinceLastStudy) }]
      : []),
  ];

  const byMastery = (dir: 1 | -1) => (a: KpStats, b: KpStats) => dir * (a.mastery - b.mastery);
  const strongest = known.filter((s) => !isRisk(s)).sort(byMastery(-1))[0];
  const weakest = [...known].sort(byMastery(1))[0];
  const summary = [
    L.practised(snapshot.learner.name || L.learner, known.length, stats.length, answers, pct(overall)),
    L.engagement(activity.engagement, activity.recentMinutes),
    reviewSummary(L, snapshot),
    strongest && strongest !== weakest ? L.strongest(titleOf(strongest.kp), pct(strongest.mastery)) : "",
    weakest && weakest !== strongest ? L.weakest(titleOf(weakest.kp), pct(weakest.mastery)) : "",
  ]
    .filter(Boolean)
    .join(T.sentenceGap);

  return {
    summary: clip(summary, 2000),
    overallMastery: overall,
    engagementLevel: activity.engagement,
    strongestKnowledgePointId: strongest && strongest !== weakest ? strongest.kp.id : null,
    strengths: strengths.slice(0, 20),
    risks: risks.slice(0, 20),
    knowledgePoints: stats.slice(0, 500).map((s) => ({
      knowledgePointId: s.kp.id,
      title: clip(titleOf(s.kp), 300),
      mastery: s.mastery,
      confidence: s.confidence,
      attempts: s.attempts.length,
    })),
  };
}

const risk = (s: KpStats, text: string) => ({ knowledgePointId: s.kp.id, text: clip(text, 300) });

type Sentences = ReturnType<typeof templatesFor>["learningState"];

function forgetting(L: Sentences, title: string, r: ReviewStats) {
  return L.forgetting(title, recallOf(r), r.forgotten, r.lapses, r.dueCards);
}

/** One sentence on the schedule: its cards, how many are due now, the mean predicted recall of the reviewed ones. */
function reviewSummary(L: Sentences, snapshot: SnapshotContent) {
  const points = snapshot.reviews?.knowledgePoints ?? [];
  if (!points.length) return "";
  // No mean recall while a card is forgotten at its latest review: FSRS's whole-day recall would read 100 %.
  const reviewed = points.filter((r) => r.retrievability !== null);
  const recall =
    reviewed.length && !points.some((r) => r.forgotten)
      ? pct(reviewed.reduce((m, r) => m + r.retrievability!, 0) / reviewed.length)
      : null;
  const sum = (f: (r: ReviewStats) => number) => points.reduce((n, r) => n + f(r), 0);
  return L.reviews(
    sum((r) => r.cards),
    sum((r) => r.dueCards),
    recall,
  );
}
