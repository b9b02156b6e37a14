import { isForgetting, type KpStats } from "../shared/statistics";
import { RISK_MASTERY, STRONG_MASTERY } from "../learning-state-analysis/analyse";
import type { AnyLearningAnalysis } from "../learning-state-analysis/schema";
import {
  countsOf,
  fmtPct,
  MASTERY_BAND,
  unsupportedPercents,
  wrongCounts,
  type EvidenceRules,
  type Finding,
} from "./finding";

type Item = { knowledgePointId: string | null; text: string };
const items = (list: (string | Item)[]): Item[] =>
  list.map((x) => (typeof x === "string" ? { knowledgePointId: null, text: x } : x));

export const learningStateRules: EvidenceRules<AnyLearningAnalysis> = {
  rules: {
    attempts_match: "Each point's `attempts` equals the number of its answers in the snapshot.",
    mastery_band: `Each point's \`mastery\` is within ±${MASTERY_BAND} of masteryOf: its answers (recent ones weigh more) and its reviews together.`,
    overall_band: `\`overallMastery\` is within ±${MASTERY_BAND} of the mean masteryOf of the points with any answer or review (0 when none has).`,
    strength_and_risk: "No point is both a strength and a risk.",
    forgotten_strength:
      "A point with a card forgotten at its latest review is neither a strength nor `strongestKnowledgePointId`.",
    strength_evidence: `A strength has answers or reviews, and a masteryOf of at least ${STRONG_MASTERY - MASTERY_BAND}.`,
    strongest_evidence: `\`strongestKnowledgePointId\` is not a risk: it has answers or reviews, nothing of it is being forgotten, and its masteryOf is within ${MASTERY_BAND} of the highest such point's.`,
    quoted_percent:
      "Every percentage a strength or risk quotes about its point is one of the point's figures: its masteryOf, its share of correct answers (recency-weighted or plain), or its predicted recall when no card was forgotten at its latest review.",
    quoted_counts:
      "Every count a strength or risk states about its point — its answers, its reviews, its newest answers' errors — is the snapshot's.",
  },
  check(v, _ctx, { stats, byId }) {
    const found: Finding[] = [];
    const add = (rule: string, path: string, message: string) => found.push({ rule, path, message });
    v.knowledgePoints.forEach((k, i) => {
      const s = byId.get(k.knowledgePointId);
      if (!s) return;
      if (k.attempts !== s.attempts.length)
        add(
          "attempts_match",
          `knowledgePoints.${i}.attempts`,
          `"${s.kp.title}" has ${s.attempts.length} answers in the snapshot, not ${k.attempts}`,
        );
      if (Math.abs(k.mastery - s.mastery) > MASTERY_BAND)
        add(
          "mastery_band",
          `knowledgePoints.${i}.mastery`,
          `"${s.kp.title}": mastery ${k.mastery} is more than ${MASTERY_BAND} from its evidence's ${s.mastery} (${s.attempts.length} answers, ${s.review?.reviews ?? 0} reviews, ${s.review?.forgotten ?? 0} cards forgotten at the latest review)`,
        );
    });
    const known = stats.filter((s) => s.evidence > 0);
    const overall = known.length ? known.reduce((m, s) => m + s.mastery, 0) / known.length : 0;
    if (Math.abs(v.overallMastery - overall) > MASTERY_BAND)
      add(
        "overall_band",
        "overallMastery",
        `overall mastery ${v.overallMastery} is more than ${MASTERY_BAND} from the evidence's ${Math.round(overall * 1000) / 1000}`,
      );

    const strengths = items(v.strengths);
    const risks = items(v.risks);
    const riskIds = new Set(risks.flatMap((r) => (r.knowledgePointId ? [r.knowledgePointId] : [])));
    const forgotten = (s: KpStats | undefined) => !!s?.review?.forgotten;
    strengths.forEach((x, i) => {
      const s = x.knowledgePointId ? byId.get(x.knowledgePointId) : undefined;
      if (!s) return;
      const at = `strengths.${i}`;
      if (riskIds.has(s.kp.id)) add("strength_and_risk", at, `"${s.kp.title}" is listed as a strength and as a risk`);
      if (forgotten(s))
        add(
          "forgotten_strength",
          at,
          `"${s.kp.title}" had ${s.review!.forgotten} card(s) forgotten at the latest review: it is not a strength`,
        );
      if (!s.evidence || s.mastery < STRONG_MASTERY - MASTERY_BAND)
        add(
          "strength_evidence",
          at,
          `"${s.kp.title}" is not a strength: mastery ${fmtPct(s.mastery)} over ${s.attempts.length} answers and ${s.review?.reviews ?? 0} reviews`,
        );
    });
    [
      ...strengths.map((x, i) => ({ x, at: `strengths.${i}.text` })),
      ...risks.map((x, i) => ({ x, at: `risks.${i}.text` })),
    ].forEach(({ x, at }) => {
      const s = x.knowledgePointId ? byId.get(x.knowledgePointId) : undefined;
      if (!s) return;
      const counts = wrongCounts(x.text, s);
      if (counts.length)
        add(
          "quoted_counts",
          at,
          `"${s.kp.title}": ${counts.join(", ")} is not what the snapshot holds (${countsOf(s)})`,
        );
      const bad = unsupportedPercents(x.text, s);
      if (bad.length)
        add(
          "quoted_percent",
          at,
          `"${s.kp.title}": ${bad.map(fmtPct).join(", ")} is not what its evidence says (mastery ${fmtPct(s.mastery)}${s.review?.forgotten ? `, ${s.review.forgotten} card(s) forgotten at the latest review` : ""})`,
        );
    });

    if ("strongestKnowledgePointId" in v && v.strongestKnowledgePointId) {
      const s = byId.get(v.strongestKnowledgePointId);
      if (s) {
        if (forgotten(s))
          add(
            "forgotten_strength",
            "strongestKnowledgePointId",
            `"${s.kp.title}" had ${s.review!.forgotten} card(s) forgotten at the latest review: it is not the strongest`,
          );
        const candidates = known.filter((k) => !isForgetting(k.review) && k.mastery >= RISK_MASTERY);
        const best = Math.max(...candidates.map((k) => k.mastery));
        if (!candidates.includes(s) || s.mastery < best - MASTERY_BAND)
          add(
            "strongest_evidence",
            "strongestKnowledgePointId",
            `"${s.kp.title}" (mastery ${fmtPct(s.mastery)}${isForgetting(s.review) ? ", being forgotten in reviews" : ""}) is not the strongest point`,
          );
      }
    }
    return found;
  },
};
