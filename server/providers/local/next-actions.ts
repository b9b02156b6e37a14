import type { SnapshotContent } from "../../job-types/fields";
import type { NextActions } from "../../job-types/next-action-planning";
import { activityOf, DAY_MS, knowledgeStats, pct, rankWeak, severityOf } from "./statistics";
import { clip, titleOf } from "./text";

type Action = NextActions["actions"][number];

/** Minutes each kind of action is planned for before it is fitted into the budget. */
export const ACTION_MINUTES = { rest: 10, reviewHigh: 20, reviewMedium: 15, practice: 10, learnNew: 20 } as const;
/** Shorter remainders are not worth an action. */
export const MIN_ACTION_MINUTES = 5;
/** A mastered point not practised for this many days is due for spaced practice. */
export const SPACED_DAYS = 7;
/** Studying this long in the last 24 hours earns a rest first. */
export const REST_AFTER_MINUTES = 120;

/**
 * next_action_planning: a rest after a long day, then weak points (review the severe ones,
 * practise the rest), then points never tried, then spaced practice of points not seen for a
 * week; taken in that order while they fit in the time budget (the last one shortened to fit).
 */
export function planNextActions(
  snapshot: SnapshotContent,
  params: { timeBudgetMinutes: number },
  asOf: Date,
): NextActions {
  const stats = knowledgeStats(snapshot);
  const activity = activityOf(snapshot, asOf);
  const away = activity.daysSinceLastStudy;
  const awayNote = away !== null && away >= SPACED_DAYS ? ` You last studied ${away} days ago, so start here.` : "";
  const candidates: Action[] = [];

  if (activity.minutesLast24h >= REST_AFTER_MINUTES) {
    candidates.push({
      actionType: "rest",
      target: { type: "none", id: null },
      title: "Take a break before the next session",
      reason: `You studied ${activity.minutesLast24h} minutes in the last 24 hours; a rest helps it stick.`,
      priority: 1,
      estimatedMinutes: ACTION_MINUTES.rest,
    });
  }
  rankWeak(stats).forEach((s, i) => {
    const severity = severityOf(s);
    const review = severity !== "low";
    candidates.push({
      actionType: review ? "review" : "practice",
      target: { type: "knowledge_point", id: s.kp.id },
      title: clip(`${review ? "Review" : "Practise"} ${titleOf(s.kp)}`, 300),
      reason: clip(
        `Mastery ${pct(s.mastery)} with ${s.recentErrors} of the last ${s.recentCount} answers wrong (${severity} severity).${i === 0 ? awayNote : ""}`,
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
    .filter((s) => !s.attempts.length)
    .forEach((s) =>
      candidates.push({
        actionType: "learn_new",
        target: { type: "knowledge_point", id: s.kp.id },
        title: clip(`Learn ${titleOf(s.kp)}`, 300),
        reason: "Not practised yet.",
        priority: 3,
        estimatedMinutes: ACTION_MINUTES.learnNew,
      }),
    );
  const weak = new Set(rankWeak(stats).map((s) => s.kp.id));
  stats
    .filter((s) => s.attempts.length && !weak.has(s.kp.id))
    .map((s) => ({ s, days: Math.floor((asOf.getTime() - Date.parse(s.attempts[0]!.answeredAt)) / DAY_MS) }))
    .filter(({ days }) => days >= SPACED_DAYS)
    .forEach(({ s, days }) =>
      candidates.push({
        actionType: "practice",
        target: { type: "knowledge_point", id: s.kp.id },
        title: clip(`Practise ${titleOf(s.kp)} again`, 300),
        reason: `Mastery ${pct(s.mastery)}, last practised ${days} days ago: spaced practice keeps it.`,
        priority: 4,
        estimatedMinutes: ACTION_MINUTES.practice,
      }),
    );
  if (!candidates.length) candidates.push(fallback(snapshot));

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

/** Nothing is weak, new or due: keep the best-known point warm, or start on a material. */
function fallback(snapshot: SnapshotContent): Action {
  const kp = snapshot.knowledgePoints[0];
  if (kp) {
    return {
      actionType: "practice",
      target: { type: "knowledge_point", id: kp.id },
      title: clip(`Practise ${titleOf(kp)}`, 300),
      reason: "Everything is on track; a short practice keeps it that way.",
      priority: 5,
      estimatedMinutes: ACTION_MINUTES.practice,
    };
  }
  const material = snapshot.materials[0];
  if (material) {
    return {
      actionType: "learn_new",
      target: { type: "material", id: material.id },
      title: clip(`Start "${material.title}"`, 300),
      reason: "No knowledge points are recorded yet for this material.",
      priority: 3,
      estimatedMinutes: ACTION_MINUTES.learnNew,
    };
  }
  return {
    actionType: "rest",
    target: { type: "none", id: null },
    title: "Nothing to study yet",
    reason: "Add a material to get a study plan.",
    priority: 5,
    estimatedMinutes: ACTION_MINUTES.rest,
  };
}
