import { defineJobType } from "../define";
import { analyseLearningState } from "./analyse";
import { learningStateAnalysisEntry } from "./schema";

export * from "./schema";

export const learningStateAnalysis = defineJobType({
  ...learningStateAnalysisEntry,
  quality(v, check) {
    v.knowledgePoints.forEach((k, i) => check.knowledgePoint(`knowledgePoints.${i}`, k.knowledgePointId));
  },
  qualityChecks(v, { snapshot }) {
    const findings: string[] = [];
    const seen = new Map<string, number>();
    for (const k of v.knowledgePoints) seen.set(k.knowledgePointId, (seen.get(k.knowledgePointId) ?? 0) + 1);
    for (const kp of snapshot.knowledgePoints) {
      const n = seen.get(kp.id) ?? 0;
      if (n !== 1) findings.push(`knowledgePoints: ${kp.id} ("${kp.title}") must appear exactly once, found ${n}`);
    }
    return findings;
  },
  prompt: {
    task: "Analyse the learner's state: a short summary, overall mastery 0..1, engagement level, strengths and risks (each naming its knowledgePointId; null only for a risk about the learner as a whole, such as little study), the strongest point's id (strongestKnowledgePointId, or null), and for every knowledge point its mastery, confidence and number of answers (attempts) copied from the facts (`knowledgePoints[].mastery`, `.confidence`, `.attempts`; overallMastery is the facts' `overallMastery`): the code computed them, do not recompute them. Every count or percentage a sentence states is one of the facts' figures for the point it names (or for the learner). When the snapshot has `reviews` (what the learner's spaced-repetition review log says per knowledge point), use it as evidence: a point with cards forgotten at their latest review, lapses or a predicted recall (`retrievability`) below 0.8 is a risk, never a strength nor the strongest, and do not quote its predicted recall when a card was forgotten; no point is both a strength and a risk; mention the cards due.",
  },
  analyse: (snapshot, _params, asOf, locale) => analyseLearningState(snapshot, asOf, locale),
});
