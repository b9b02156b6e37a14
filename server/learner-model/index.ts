/**
 * The learner model: every fact the app states about a learner, computed in one place from her
 * evidence, so every view and every analysis states the same figure.
 * - points.ts (pure, from a snapshot): each point's mastery (answers and reviews, one formula),
 *   its band (weak / middle / strong / unknown, one set of thresholds), whether it is being
 *   forgotten, and the schedule's retention;
 * - cards.ts (from the database): the cards due now under today's limits, due later in her day,
 *   held back by the limits, set aside (suspended, buried), and the limits themselves.
 * Review, the page's top line, the digest, the snapshot a job sees (and so every analyzer and
 * every evidence rule) read them here.
 */
import type { SnapshotContent } from "../job-types/fields";
import { bandOf, isForgetting, knowledgeStats, type Band } from "./points";

export { cardFacts, type CardFacts } from "./cards";
export { bandOf, masteryOf, retentionOf, type Band } from "./points";

export type PointFact = {
  knowledgePointId: string;
  mastery: number;
  band: Band;
  forgetting: boolean;
  answers: number;
  reviews: number;
  /** Cards of the point due at the capture, not set aside. */
  dueCards: number;
};

/** Each point of the snapshot with its facts, in snapshot order. */
export function pointFacts(snapshot: SnapshotContent): PointFact[] {
  return knowledgeStats(snapshot).map((s) => ({
    knowledgePointId: s.kp.id,
    mastery: s.mastery,
    band: bandOf(s),
    forgetting: isForgetting(s.review),
    answers: s.attempts.length,
    reviews: s.review?.reviews ?? 0,
    dueCards: s.review?.dueCards ?? 0,
  }));
}
