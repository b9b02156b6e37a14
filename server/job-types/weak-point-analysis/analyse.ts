import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import type { WeakPoints } from "./schema";
import { knowledgeStats, pct, rankWeak, recallOf, severityOf, type KpStats } from "../shared/statistics";
import { templatesFor } from "../shared/templates";
import { clip, materialTitleOf, statementOf, titleOf } from "../shared/text";

/** The quiz answers that made the point weak, then what its reviews say (when it has been reviewed). */
export function evidenceOf(s: KpStats, locale: Locale = "en"): string[] {
  const W = templatesFor(locale).weakPoints;
  const wrong = s.attempts.filter((a) => !a.correct).slice(0, 3);
  const r = s.review;
  return [
    W.mastery(pct(s.mastery), s.attempts.length, r?.reviews ?? 0),
    ...(s.recentErrors ? [W.recentWrong(s.recentErrors, s.recentCount)] : []),
    ...wrong.map((a) => W.wrongOn(a.answeredAt.slice(0, 10), a.question)),
    ...(r?.reviews ? [W.reviewed(r.reviews, r.again, recallOf(r))] : []),
    ...(r?.forgotten ? [W.forgotten(r.forgotten)] : []),
    ...(r?.lapses ? [W.lapses(r.lapses)] : []),
  ].map((e) => clip(e, 500));
}

export function suggestedReviewOf(snapshot: SnapshotContent, s: KpStats, locale: Locale = "en") {
  const T = templatesFor(locale);
  const material = materialTitleOf(snapshot, s.kp);
  // The due cards first: a long statement is clipped, the note is not.
  const due = s.review?.dueCards ? T.weakPoints.dueCards(s.review.dueCards) + T.sentenceGap : "";
  return clip(due + T.weakPoints.review(material, titleOf(s.kp), statementOf(snapshot, s.kp)), 1000);
}

/**
 * weak_point_analysis: low mastery and recent errors, and points the review log says are being
 * forgotten (which also raises their severity), weakest first, each with the evidence that made it weak.
 */
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
