import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import type { WeakPoints } from "./schema";
import { knowledgeStats, pct, rankWeak, severityOf, type KpStats } from "../shared/statistics";
import { templatesFor } from "../shared/templates";
import { clip, materialTitleOf, statementOf, titleOf } from "../shared/text";

export function evidenceOf(s: KpStats, locale: Locale = "en"): string[] {
  const W = templatesFor(locale).weakPoints;
  const wrong = s.attempts.filter((a) => !a.correct).slice(0, 3);
  return [
    W.mastery(pct(s.mastery), s.attempts.length),
    ...(s.recentErrors ? [W.recentWrong(s.recentErrors, s.recentCount)] : []),
    ...wrong.map((a) => W.wrongOn(a.answeredAt.slice(0, 10), a.question)),
  ].map((e) => clip(e, 500));
}

export function suggestedReviewOf(snapshot: SnapshotContent, s: KpStats, locale: Locale = "en") {
  const material = materialTitleOf(snapshot, s.kp);
  return clip(templatesFor(locale).weakPoints.review(material, titleOf(s.kp), statementOf(snapshot, s.kp)), 1000);
}

/** weak_point_analysis: low mastery and recent errors, weakest first, each with the evidence that made it weak. */
export function analyseWeakPoints(snapshot: SnapshotContent, locale: Locale = "en"): WeakPoints {
  return {
    weakPoints: rankWeak(knowledgeStats(snapshot))
      .slice(0, 100)
      .map((s) => ({
        knowledgePointId: s.kp.id,
        title: clip(titleOf(s.kp), 300),
        severity: severityOf(s),
        evidence: evidenceOf(s, locale),
        suggestedReview: suggestedReviewOf(snapshot, s, locale),
      })),
  };
}
