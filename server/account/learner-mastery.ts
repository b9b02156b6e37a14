import { getDb } from "../db";
import { now } from "../clock";
import { evidenceCount, masteryOf } from "../job-types/shared/statistics";
import { readReviewEvidence } from "../jobs/review-evidence";
import { MAX_ATTEMPTS } from "../jobs/snapshot";

export type PointMastery = {
  knowledgePointId: string;
  title: string;
  /** masteryOf: answers and reviews together, 0..1. */
  mastery: number;
  /** Answers plus reviews the figure rests on; 0: nothing is known of the point yet. */
  evidence: number;
};

/** Points a row of the Learners page carries, whatever the learner holds (the rest: `pointCount`). */
export const POINTS_SHOWN = 5;

export type LearnerMastery = {
  /** Mean mastery over the points with evidence; null when no point has any. */
  mean: number | null;
  /** The point with evidence whose mastery is lowest (null when none has evidence). */
  weakest: PointMastery | null;
  /** At most POINTS_SHOWN points, weakest first; points without evidence last. */
  points: PointMastery[];
  /** How many knowledge points the learner has in all. */
  pointCount: number;
};

/**
 * Per knowledge point mastery of one learner, the number the analyses use: the same evidence a
 * whole-learner snapshot carries (the newest MAX_ATTEMPTS answers and the review evidence of
 * readReviewEvidence as of now) fed to masteryOf. Bounded whatever the learner holds: only the
 * points with evidence are read by title (the answers are capped, the review evidence is per
 * point reviewed), the others are counted, and the row carries the POINTS_SHOWN weakest.
 */
export async function masteryOfLearner(userId: string): Promise<LearnerMastery> {
  const db = getDb();
  const [pointCount, attempts, reviews] = await Promise.all([
    db.knowledgePoint.count({ where: { userId } }),
    db.quizAttempt.findMany({
      where: { userId },
      select: { knowledgePointId: true, correct: true, answeredAt: true },
      orderBy: [{ answeredAt: "desc" }, { id: "asc" }],
      take: MAX_ATTEMPTS,
    }),
    readReviewEvidence(db, userId, null, now()),
  ]);
  // Newest first, as the snapshot lists them (knowledgeStats keeps that order).
  const byKp = new Map<string, { correct: boolean }[]>();
  for (const a of attempts) byKp.set(a.knowledgePointId, [...(byKp.get(a.knowledgePointId) ?? []), a]);
  const review = new Map((reviews?.knowledgePoints ?? []).map((r) => [r.knowledgePointId, r]));
  const withEvidence = [...new Set([...byKp.keys(), ...review.keys()])];
  const [evidenced, others] = await Promise.all([
    db.knowledgePoint.findMany({ where: { userId, id: { in: withEvidence } }, select: { id: true, title: true } }),
    // Enough points without evidence to fill the row when too few have any.
    db.knowledgePoint.findMany({
      where: { userId, id: { notIn: withEvidence } },
      select: { id: true, title: true },
      orderBy: { id: "asc" },
      take: POINTS_SHOWN,
    }),
  ]);
  const all = [...evidenced, ...others].map((p) => {
    const answers = byKp.get(p.id) ?? [];
    const r = review.get(p.id);
    return {
      knowledgePointId: p.id,
      title: p.title,
      mastery: masteryOf(answers, r),
      evidence: evidenceCount(answers.length, r),
    };
  });
  const known = all
    .filter((p) => p.evidence > 0)
    .sort((a, b) => a.mastery - b.mastery || a.title.localeCompare(b.title));
  const unknown = all.filter((p) => p.evidence === 0);
  return {
    mean: known.length ? Math.round((known.reduce((s, p) => s + p.mastery, 0) / known.length) * 1000) / 1000 : null,
    weakest: known[0] ?? null,
    points: [...known, ...unknown].slice(0, POINTS_SHOWN),
    pointCount,
  };
}

/** masteryOfLearner for the learners of one page (a few at a time: each is a handful of queries). */
export async function learnerMastery(userIds: string[]): Promise<Map<string, LearnerMastery>> {
  const out = new Map<string, LearnerMastery>();
  for (let i = 0; i < userIds.length; i += 5) {
    const batch = userIds.slice(i, i + 5);
    const results = await Promise.all(batch.map((id) => masteryOfLearner(id)));
    batch.forEach((id, j) => out.set(id, results[j]!));
  }
  return out;
}
