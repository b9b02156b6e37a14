import {
  isForgetting,
  isWeak,
  LEVELS,
  SEVERE_MASTERY,
  severityOf,
  WEAK_MASTERY,
  type KpStats,
} from "../shared/statistics";
import type { WeakPoints } from "../weak-point-analysis/schema";
import {
  countsOf,
  fmtPct,
  MASTERY_BAND,
  unsupportedPercents,
  wrongCounts,
  type EvidenceRules,
  type Finding,
} from "./finding";

/** Weak by the evidence, with the band's slack: what a listed weak point must be. */
const weakEnough = (s: KpStats) => isWeak(s) || (s.evidence > 0 && s.mastery < WEAK_MASTERY + MASTERY_BAND);
/** Clearly weak: a card forgotten at its latest review, or mastery below 0.35 over at least 3 answers and reviews. */
const clearlyWeak = (s: KpStats) => !!s.review?.forgotten || (s.evidence >= 3 && s.mastery < SEVERE_MASTERY);
const describe = (s: KpStats) =>
  `mastery ${fmtPct(s.mastery)} over ${s.attempts.length} answers and ${s.review?.reviews ?? 0} reviews, ${s.recentErrors} of the last ${s.recentCount} answers wrong${s.review?.forgotten ? `, ${s.review.forgotten} card(s) forgotten at the latest review` : ""}${isForgetting(s.review) ? ", being forgotten in reviews" : ""}`;

export const weakPointRules: EvidenceRules<WeakPoints> = {
  rules: {
    weak_evidence: `A listed point is weak by its evidence: masteryOf below ${WEAK_MASTERY + MASTERY_BAND}, two of its three newest answers wrong, or its reviews say it is being forgotten (a card forgotten at its latest review, or predicted recall below 0.8).`,
    weak_missed:
      "A clearly weak point is listed (unless the list is full at 100): a card forgotten at its latest review, or masteryOf below 0.35 over at least 3 answers and reviews.",
    severity_counts:
      "`severity` is at most one level from the evidence's (masteryOf below 0.35 high, below 0.6 medium, else low; one level more when being forgotten in reviews), and never `low` for a point with a card forgotten at its latest review.",
    quoted_percent:
      "Every percentage an evidence line or the suggested review quotes is one of the point's figures: its masteryOf, its share of correct answers (recency-weighted or plain), or its predicted recall when no card was forgotten at its latest review.",
    quoted_counts:
      "Every count an evidence line or the suggested review states about the point — its answers, its reviews, its newest answers' errors — is the snapshot's.",
  },
  check(v, _ctx, { stats, byId }) {
    const found: Finding[] = [];
    const add = (rule: string, path: string, message: string) => found.push({ rule, path, message });
    const listed = new Set(v.weakPoints.map((w) => w.knowledgePointId));
    v.weakPoints.forEach((w, i) => {
      const s = byId.get(w.knowledgePointId);
      if (!s) return;
      if (!weakEnough(s)) add("weak_evidence", `weakPoints.${i}`, `"${s.kp.title}" is not weak: ${describe(s)}`);
      const expected = severityOf(s);
      const gap = Math.abs(LEVELS.indexOf(w.severity) - LEVELS.indexOf(expected));
      if (gap > 1 || (w.severity === "low" && s.review?.forgotten))
        add(
          "severity_counts",
          `weakPoints.${i}.severity`,
          `"${s.kp.title}": severity ${w.severity} does not fit the evidence (${describe(s)}; expected ${expected})`,
        );
      [
        ...w.evidence.map((e, k) => ({ text: e, at: `weakPoints.${i}.evidence.${k}` })),
        { text: w.suggestedReview, at: `weakPoints.${i}.suggestedReview` },
      ].forEach(({ text, at }) => {
        const counts = wrongCounts(text, s);
        if (counts.length)
          add(
            "quoted_counts",
            at,
            `"${s.kp.title}": ${counts.join(", ")} is not what the snapshot holds (${countsOf(s)})`,
          );
        const bad = unsupportedPercents(text, s);
        if (bad.length)
          add(
            "quoted_percent",
            at,
            `"${s.kp.title}": ${bad.map(fmtPct).join(", ")} is not what its evidence says (${describe(s)})`,
          );
      });
    });
    if (v.weakPoints.length < 100)
      stats
        .filter((s) => clearlyWeak(s) && !listed.has(s.kp.id))
        .forEach((s) =>
          add("weak_missed", "weakPoints", `"${s.kp.title}" (${s.kp.id}) is weak and missing: ${describe(s)}`),
        );
    return found;
  },
};
