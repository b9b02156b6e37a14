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
    task: "Analyse the learner's state: a short summary, overall mastery 0..1, engagement level, strengths, risks, and for every knowledge point its mastery 0..1 (recent answers count more), a confidence 0..1 that grows with the number of answers and reviews, and the number of answers. When the snapshot has `reviews` (what the learner's spaced-repetition review log says per knowledge point, as of `reviews.asOf`), use it as evidence: a point with cards forgotten at their latest review, lapses or a predicted recall (`retrievability`) below 0.8 is a risk, not a strength; recall of 0.9 or more over several reviews is a strength; mention the cards due.",
  },
  analyse: (snapshot, _params, asOf, locale) => analyseLearningState(snapshot, asOf, locale),
});
