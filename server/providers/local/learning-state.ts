import type { SnapshotContent } from "../../job-types/fields";
import type { LearningAnalysis } from "../../job-types/learning-state-analysis";
import { activityOf, knowledgeStats, pct, round3 } from "./statistics";
import { clip, titleOf } from "./text";

/** learning_state_analysis from the snapshot's quiz history and study sessions. */
export function analyseLearningState(snapshot: SnapshotContent, asOf: Date): LearningAnalysis {
  const stats = knowledgeStats(snapshot);
  const activity = activityOf(snapshot, asOf);
  const practised = stats.filter((s) => s.attempts.length > 0);
  const overall = practised.length ? round3(practised.reduce((m, s) => m + s.mastery, 0) / practised.length) : 0;
  const answers = practised.reduce((n, s) => n + s.attempts.length, 0);

  const strengths = practised
    .filter((s) => s.mastery >= 0.8 && s.attempts.length >= 2)
    .map((s) => clip(`${titleOf(s.kp)}: ${pct(s.mastery)} mastery over ${s.attempts.length} answers`, 300));
  const risks = [
    ...practised
      .filter((s) => s.mastery < 0.5)
      .map((s) =>
        clip(
          `${titleOf(s.kp)}: ${pct(s.mastery)} mastery, ${s.recentErrors} of the last ${s.recentCount} answers wrong`,
          300,
        ),
      ),
    ...stats.filter((s) => !s.attempts.length).map((s) => clip(`${titleOf(s.kp)}: not practised yet`, 300)),
    ...(activity.engagement === "low" ? [`Little study in the last 14 days (${activity.recentMinutes} minutes)`] : []),
    ...(activity.daysSinceLastStudy !== null && activity.daysSinceLastStudy >= 7
      ? [`No study for ${activity.daysSinceLastStudy} days`]
      : []),
  ];

  const strongest = [...practised].sort((a, b) => b.mastery - a.mastery)[0];
  const weakest = [...practised].sort((a, b) => a.mastery - b.mastery)[0];
  const summary = [
    `${snapshot.learner.name || "The learner"} has practised ${practised.length} of ${stats.length} knowledge points (${answers} answers); overall mastery is ${pct(overall)}.`,
    `Engagement is ${activity.engagement} (${activity.recentMinutes} minutes in the last 14 days).`,
    strongest && strongest !== weakest ? `Strongest: ${titleOf(strongest.kp)} (${pct(strongest.mastery)}).` : "",
    weakest ? `Needs the most work: ${titleOf(weakest.kp)} (${pct(weakest.mastery)}).` : "",
  ]
    .filter(Boolean)
    .join(" ");

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
