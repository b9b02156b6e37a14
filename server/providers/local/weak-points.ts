import type { SnapshotContent } from "../../job-types/fields";
import type { WeakPoints } from "../../job-types/weak-point-analysis";
import { knowledgeStats, pct, rankWeak, severityOf, type KpStats } from "./statistics";
import { clip, materialTitleOf, statementOf, titleOf } from "./text";

export function evidenceOf(s: KpStats): string[] {
  const wrong = s.attempts.filter((a) => !a.correct).slice(0, 3);
  return [
    `Mastery ${pct(s.mastery)} over ${s.attempts.length} answers (recent answers weigh more)`,
    ...(s.recentErrors ? [`${s.recentErrors} of the last ${s.recentCount} answers wrong`] : []),
    ...wrong.map((a) => `Wrong on ${a.answeredAt.slice(0, 10)}: "${a.question}"`),
  ].map((e) => clip(e, 500));
}

export function suggestedReviewOf(snapshot: SnapshotContent, s: KpStats) {
  const material = materialTitleOf(snapshot, s.kp);
  return clip(
    `Re-read ${material ? `"${material}" on ` : ""}"${titleOf(s.kp)}": ${statementOf(snapshot, s.kp)} Then answer a few practice questions on it.`,
    1000,
  );
}

/** weak_point_analysis: low mastery and recent errors, weakest first, each with the evidence that made it weak. */
export function analyseWeakPoints(snapshot: SnapshotContent): WeakPoints {
  return {
    weakPoints: rankWeak(knowledgeStats(snapshot))
      .slice(0, 100)
      .map((s) => ({
        knowledgePointId: s.kp.id,
        title: clip(titleOf(s.kp), 300),
        severity: severityOf(s),
        evidence: evidenceOf(s),
        suggestedReview: suggestedReviewOf(snapshot, s),
      })),
  };
}
