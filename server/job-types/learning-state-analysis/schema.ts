import { z } from "zod";
import { id, text, unit } from "../fields";
import { catalogueEntry } from "../define";

export const learningAnalysisSchema = z.strictObject({
  summary: text(2000),
  overallMastery: unit,
  engagementLevel: z.enum(["low", "medium", "high"]),
  strengths: z.array(text(300)).max(20),
  risks: z.array(text(300)).max(20),
  knowledgePoints: z
    .array(
      z.strictObject({
        knowledgePointId: id,
        title: text(300),
        mastery: unit,
        confidence: unit,
        attempts: z.number().int().min(0),
      }),
    )
    .max(500),
});
export type LearningAnalysis = z.infer<typeof learningAnalysisSchema>;

/** The type as the browser and the contract see it: its label, targets, params, output and quality rules. */
export const learningStateAnalysisEntry = catalogueEntry({
  label: { title: "Learning state", blurb: "How well you know each topic, and how engaged you have been." },
  params: z.strictObject({}),
  output: { version: "v1", schema: learningAnalysisSchema },
  qualityRules: {},
});
