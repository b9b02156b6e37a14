import type { SnapshotContent } from "../fields";
import type { Locale } from "../../i18n/locales";
import type { NextActions } from "./schema";
import {
  activityOf,
  DAY_MS,
  isForgetting,
  isWeak,
  knowledgeStats,
  pct,
  rankWeak,
  recallOf,
  severityOf,
  type KpStats,
} from "../shared/statistics";
import { templatesFor, type Templates } from "../shared/templates";
import { clip, titleOf } from "../shared/text";

type Action = NextActions["actions"][number];

/** Minutes each kind of action is planned for before it is fitted into the budget. */
export const ACTION_MINUTES = { rest: 10, reviewHigh: 20, reviewMedium: 15, practice: 10, learnNew: 20 } as const;
/** Shorter remainders are not worth an action. */
export const MIN_ACTION_MINUTES = 5;
/** A mastered point not practised for this many days is due for spaced practice. */
export const SPACED_DAYS = 7;
/** Studying this long in the last 24 hours earns a rest first. */
export const REST_AFTER_MINUTES = 120;
/** Minutes planned per due card, and the bounds of one due-review action. */
export const MINUTES_PER_DUE_CARD = 1;
export const MAX_DUE_REVIEW_MINUTES = 30;

/**
 * next_action_planning: a rest after a long day, then the due reviews (the cards of each point due
 * by the snapshot's review evidence, points being forgotten first, then most due), then weak points
 * (review the severe ones, practise the rest; a point weak only by its reviews is already in its
 * due review), then points never tried, then spaced practice of points not seen for a week; taken
 * in that order while they fit in the time budget (the last one shortened to fit).
 */
export function planNextActions(
  snapshot: SnapshotContent,
  params: { timeBudgetMinutes: number },
  asOf: Date,
  locale: Locale = "en",
): NextActions {
  const N = templatesFor(locale).nextActions;
  const stats = knowledgeStats(snapshot);
  const activity = activityOf(snapshot, asOf);
  const away = activity.daysSinceLastStudy;
  const awayNote = away !== null && away >= SPACED_DAYS ? N.away(away) : "";
  const candidates: Action[] = [];

  if (activity.minutesLast24h >= REST_AFTER_MINUTES) {
    candidates.push({
      actionType: "rest",
      target: { type: "none", id: null },
      title: N.restTitle,
      reason: N.restReason(activity.minutesLast24h),
      priority: 1,
      estimatedMinutes: ACTION_MINUTES.rest,
    });
  }
  const due = dueReviews(stats);
  // Back after a week or more: the note goes on the first review, due or weak. A weak point with
  // due cards is reviewed once, in its due review (which says why it is weak too).
  const gap = templatesFor(locale).sentenceGap;
  due.forEach((s, i) => candidates.push(dueReviewAction(s, N, gap, i === 0 ? awayNote : "")));
  const dueKps = new Set(due.map((s) => s.kp.id));
  rankWeak(stats)
    .filter((s) => !dueKps.has(s.kp.id))
    .forEach((s, i) => {
      const severity = severityOf(s);
      const review = severity !== "low";
      candidates.push({
        actionType: review ? "review" : "practice",
        target: { type: "knowledge_point", id: s.kp.id },
        title: clip(review ? N.review(titleOf(s.kp)) : N.practise(titleOf(s.kp)), 300),
        reason: clip(
          `${N.weakReason(pct(s.mastery), s.recentErrors, s.recentCount, severity)}${i === 0 && !due.length ? awayNote : ""}`,
          1000,
        ),
        priority: severity === "high" ? 1 : severity === "medium" ? 2 : 3,
        estimatedMinutes:
          severity === "high"
            ? ACTION_MINUTES.reviewHigh
            : review
              ? ACTION_MINUTES.reviewMedium
              : ACTION_MINUTES.practice,
      });
    });
  stats
    .filter((s) => !s.evidence && !dueKps.has(s.kp.id))
    .forEach((s) =>
      candidates.push({
        actionType: "learn_new",
        target: { type: "knowledge_point", id: s.kp.id },
        title: clip(N.learn(titleOf(s.kp)), 300),
        reason: N.notPractised,
        priority: 3,
        estimatedMinutes: ACTION_MINUTES.learnNew,
      }),
    );
  const weak = new Set(rankWeak(stats).map((s) => s.kp.id));
  stats
    .filter((s) => s.attempts.length && !weak.has(s.kp.id) && !dueKps.has(s.kp.id))
    .map((s) => ({ s, days: Math.floor((asOf.getTime() - lastPractised(s)) / DAY_MS) }))
    .filter(({ days }) => days >= SPACED_DAYS)
    .forEach(({ s, days }) =>
      candidates.push({
        actionType: "practice",
        target: { type: "knowledge_point", id: s.kp.id },
        title: clip(N.practiseAgain(titleOf(s.kp)), 300),
        reason: N.spacedReason(pct(s.mastery), days),
        priority: 4,
        estimatedMinutes: ACTION_MINUTES.practice,
      }),
    );
  if (!candidates.length) candidates.push(fallback(snapshot, N));

  const actions: Action[] = [];
  let left = params.timeBudgetMinutes;
  for (const c of candidates) {
    if (actions.length === 20 || left < MIN_ACTION_MINUTES) break;
    const minutes = Math.min(c.estimatedMinutes, left);
    actions.push({ ...c, estimatedMinutes: minutes });
    left -= minutes;
  }
  return { actions };
}

/** Points with cards due for review: those being forgotten first, then the most due, then snapshot order. */
function dueReviews(stats: KpStats[]) {
  return stats
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => (s.review?.dueCards ?? 0) > 0)
    .sort(
      (a, b) =>
        Number(isForgetting(b.s.review)) - Number(isForgetting(a.s.review)) ||
        b.s.review!.dueCards - a.s.review!.dueCards ||
        a.i - b.i,
    )
    .map(({ s }) => s);
}

function dueReviewAction(s: KpStats, N: Templates["nextActions"], gap: string, note: string): Action {
  const r = s.review!;
  const weak = isWeak(s) ? gap + N.weakReason(pct(s.mastery), s.recentErrors, s.recentCount, severityOf(s)) : "";
  return {
    actionType: "review",
    target: { type: "knowledge_point", id: s.kp.id },
    title: clip(N.reviewDue(titleOf(s.kp), r.dueCards), 300),
    reason: clip(N.dueReason(r.dueCards, r.forgotten, recallOf(r)) + weak + note, 1000),
    dueCards: r.dueCards,
    priority: isForgetting(r) || severityOf(s) === "high" ? 1 : 2,
    estimatedMinutes: Math.min(MAX_DUE_REVIEW_MINUTES, Math.max(MIN_ACTION_MINUTES, r.dueCards * MINUTES_PER_DUE_CARD)),
  };
}

/** The newest answer or review of a practised point. */
function lastPractised(s: KpStats) {
  const review = s.review?.lastReviewedAt ? Date.parse(s.review.lastReviewedAt) : 0;
  return Math.max(Date.parse(s.attempts[0]!.answeredAt), review);
}

/** Nothing is weak, new or due: keep the best-known point warm, or start on a material. */
function fallback(snapshot: SnapshotContent, N: Templates["nextActions"]): Action {
  const kp = snapshot.knowledgePoints[0];
  if (kp) {
    return {
      actionType: "practice",
      target: { type: "knowledge_point", id: kp.id },
      title: clip(N.practise(titleOf(kp)), 300),
      reason: N.onTrack,
      priority: 5,
      estimatedMinutes: ACTION_MINUTES.practice,
    };
  }
  const material = snapshot.materials[0];
  if (material) {
    return {
      actionType: "learn_new",
      target: { type: "material", id: material.id },
      title: clip(N.start(material.title), 300),
      reason: N.noPoints,
      priority: 3,
      estimatedMinutes: ACTION_MINUTES.learnNew,
    };
  }
  return {
    actionType: "rest",
    target: { type: "none", id: null },
    title: N.nothingTitle,
    reason: N.nothingReason,
    priority: 5,
    estimatedMinutes: ACTION_MINUTES.rest,
  };
}
