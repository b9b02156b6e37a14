import { z } from "zod";
import { analyseWeakPoints } from "../providers/local/weak-points";
import { defineJobType } from "./define";
import { id, text } from "./fields";

export const weakPointsSchema = z.strictObject({
  weakPoints: z
    .array(
      z.strictObject({
        knowledgePointId: id,
        title: text(300),
        severity: z.enum(["low", "medium", "high"]),
        evidence: z.array(text(500)).min(1).max(10),
        suggestedReview: text(1000),
      }),
    )
    .max(100),
});
export type WeakPoints = z.infer<typeof weakPointsSchema>;

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
