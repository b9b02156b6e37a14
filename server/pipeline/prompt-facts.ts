import type { SnapshotContent } from "../job-types/fields";
import { knowledgeStats, retentionOf } from "../job-types/shared/statistics";

/**
 * The facts the code computes from a snapshot, as the prompt gives them to the model: per point
 * its mastery (masteryOf: answers and reviews together), confidence, answers (right, wrong, and
 * wrong among the newest 3), reviews, Again ratings, forgotten cards, lapses, cards, due cards
 * and predicted recall (null when a card was forgotten at its latest review: FSRS's whole-day
 * recall would read 100 %); the overall mastery; the schedule's retention (retentionOf: a card
 * forgotten at its latest review counts as not retained) and today's counts (cards Review offers
 * now, later today, held back by the limits), as the summary states them. The model copies these figures and never
 * recomputes them, and the quality rules hold every figure it writes to the same ones. Points
 * are named by id only: no learner-written text.
 */
export function promptFacts(snapshot: SnapshotContent) {
  const stats = knowledgeStats(snapshot);
  const known = stats.filter((s) => s.evidence > 0);
  const overall = known.length ? known.reduce((m, s) => m + s.mastery, 0) / known.length : 0;
  const reviews = snapshot.reviews?.knowledgePoints ?? [];
  const today = snapshot.reviews?.today;
  return {
    overallMastery: Math.round(overall * 1000) / 1000,
    ...(reviews.length ? { retention: retentionOf(reviews) } : {}),
    ...(today ? { cardsToday: { now: today.now, laterToday: today.laterToday, heldBack: today.heldBack } } : {}),
    answers: snapshot.quizAttempts.length,
    knowledgePointsPractised: known.length,
    knowledgePoints: stats.map((s) => {
      const right = s.attempts.filter((a) => a.correct).length;
      const r = s.review;
      return {
        knowledgePointId: s.kp.id,
        mastery: s.mastery,
        confidence: s.confidence,
        attempts: s.attempts.length,
        right,
        wrong: s.attempts.length - right,
        newestAnswersWrong: `${s.recentErrors} of ${s.recentCount}`,
        ...(r
          ? {
              reviews: r.reviews,
              again: r.again,
              forgottenAtLatestReview: r.forgotten,
              lapses: r.lapses,
              cards: r.cards,
              dueCards: r.dueCards,
              predictedRecall: r.retrievability !== null && !r.forgotten ? r.retrievability : null,
            }
          : {}),
      };
    }),
  };
}
