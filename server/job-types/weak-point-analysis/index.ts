import { z } from "zod";
import { defineJobType } from "../define";
import { analyseWeakPoints } from "./analyse";
import { weakPointsSchema } from "./schema";

export * from "./schema";

export const weakPointAnalysis = defineJobType({
  label: { title: "Weak points", blurb: "The topics that need attention, ranked, with the evidence." },
  params: z.strictObject({}),
  output: { version: "v1", schema: weakPointsSchema },
  qualityRules: {},
  quality(v, check) {
    v.weakPoints.forEach((w, i) => check.knowledgePoint(`weakPoints.${i}`, w.knowledgePointId));
  },
  review(v) {
    const ids = v.weakPoints.map((w) => w.knowledgePointId);
    return new Set(ids).size !== ids.length ? ["weakPoints: a knowledge point is listed twice"] : [];
  },
  prompt: {
    task: "Find the learner's weak knowledge points, ranked by low mastery and recent errors. For each give a severity, the concrete evidence from the quiz history, and a suggested review.",
  },
  analyse: (snapshot, _params, _asOf, locale) => analyseWeakPoints(snapshot, locale),
});
