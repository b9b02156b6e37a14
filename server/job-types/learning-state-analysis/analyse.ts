import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import type { LearningAnalysis } from "./schema";
import {
  activityOf,
  isForgetting,
  isStrongRecall,
  knowledgeStats,
  pct,
  recallOf,
  round3,
  type ReviewStats,
} from "../shared/statistics";
import { templatesFor } from "../shared/templates";
import { clip, titleOf } from "../shared/text";

/**
 * learning_state_analysis from the snapshot's quiz history, study sessions and review evidence,
 * written in the job's language: a point whose reviews say it is being forgotten is a risk (not a
 * strength), strong recall over reviews is a strength, and reviews add to a point's confidence.
 */
export function analyseLearningState(snapshot: SnapshotContent, asOf: Date, locale: Locale = "en"): LearningAnalysis {
  const T = templatesFor(locale);
  const L = T.learningState;
  const stats = knowledgeStats(snapshot);
  const activity = activityOf(snapshot, asOf);
  const practised = stats.filter((s) => s.attempts.length > 0);
  const overall = practised.length ? round3(practised.reduce((m, s) => m + s.mastery, 0) / practised.length) : 0;
  const answers = practised.reduce((n, s) => n + s.attempts.length, 0);

  const quizStrong = (s: (typeof stats)[number]) => s.attempts.length >= 2 && s.mastery >= 0.8;
  const strengths = [
    ...practised
      .filter((s) => quizStrong(s) && !isForgetting(s.review))
      .map((s) => clip(L.strength(titleOf(s.kp), pct(s.mastery), s.attempts.length), 300)),
    ...stats
      .filter((s) => !quizStrong(s) && isStrongRecall(s.review))
      .map((s) => clip(L.recallStrength(titleOf(s.kp), pct(s.review!.retrievability!), s.review!.reviews), 300)),
  ];
  const risks = [
    ...stats.filter((s) => isForgetting(s.review)).map((s) => clip(forgetting(L, titleOf(s.kp), s.review!), 300)),
    ...practised
      .filter((s) => s.mastery < 0.5)
      .map((s) => clip(L.risk(titleOf(s.kp), pct(s.mastery), s.recentErrors, s.recentCount), 300)),
    ...stats
      .filter((s) => !s.attempts.length && !s.review?.reviews)
      .map((s) => clip(L.notPractised(titleOf(s.kp)), 300)),
    ...(activity.engagement === "low" ? [L.littleStudy(activity.recentMinutes)] : []),
    ...(activity.daysSinceLastStudy !== null && activity.daysSinceLastStudy >= 7
      ? [L.away(activity.daysSinceLastStudy)]
      : []),
  ];

  const strongest = [...practised].sort((a, b) => b.mastery - a.mastery)[0];
  const weakest = [...practised].sort((a, b) => a.mastery - b.mastery)[0];
  const summary = [
    L.practised(snapshot.learner.name || L.learner, practised.length, stats.length, answers, pct(overall)),
    L.engagement(activity.engagement, activity.recentMinutes),
    reviewSummary(L, snapshot),
    strongest && strongest !== weakest ? L.strongest(titleOf(strongest.kp), pct(strongest.mastery)) : "",
    weakest ? L.weakest(titleOf(weakest.kp), pct(weakest.mastery)) : "",
  ]
    .filter(Boolean)
    .join(T.sentenceGap);

  return {
    summary: clip(summary, 2000),
    overallMastery: overall,
    engagementLevel: activity.engagement,
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

type Sentences = ReturnType<typeof templatesFor>["learningState"];

function forgetting(L: Sentences, title: string, r: ReviewStats) {
  return L.forgetting(title, recallOf(r), r.forgotten, r.lapses, r.dueCards);
}

/** One sentence on the schedule: its cards, how many are due, the mean predicted recall of the reviewed ones. */
function reviewSummary(L: Sentences, snapshot: SnapshotContent) {
  const points = snapshot.reviews?.knowledgePoints ?? [];
  if (!points.length) return "";
  const reviewed = points.filter((r) => r.retrievability !== null);
  const recall = reviewed.length ? pct(reviewed.reduce((m, r) => m + r.retrievability!, 0) / reviewed.length) : null;
  const sum = (f: (r: ReviewStats) => number) => points.reduce((n, r) => n + f(r), 0);
  return L.reviews(
    sum((r) => r.cards),
    sum((r) => r.dueCards),
    recall,
  );
}
