import { defineJobType } from "../define";
import { analyseWeakPoints } from "./analyse";
import { weakPointAnalysisEntry } from "./schema";

export * from "./schema";

export const weakPointAnalysis = defineJobType({
  ...weakPointAnalysisEntry,
  quality(v, check) {
    v.weakPoints.forEach((w, i) => check.knowledgePoint(`weakPoints.${i}`, w.knowledgePointId));
  },
  qualityChecks(v) {
    const ids = v.weakPoints.map((w) => w.knowledgePointId);
    return new Set(ids).size !== ids.length ? ["weakPoints: a knowledge point is listed twice"] : [];
  },
  prompt: {
    task: "Find the learner's weak knowledge points, ranked by low mastery and recent errors. When the snapshot has `reviews` (the learner's review log per knowledge point), a point with cards forgotten at their latest review, lapses or a predicted recall (`retrievability`) below 0.8 is weak too, and this raises its severity one level. For each give a severity, the concrete evidence from the quiz history and the review log, and a suggested review that names its due cards.",
  },
  analyse: (snapshot, _params, _asOf, locale) => analyseWeakPoints(snapshot, locale),
});
