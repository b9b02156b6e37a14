import { z } from "zod";
import { id, text } from "../fields";
import { catalogueEntry } from "../define";

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

/** The type as the browser and the contract see it: its label, targets, params, output and quality rules. */
export const weakPointAnalysisEntry = catalogueEntry({
  label: { title: "Weak points", blurb: "The topics that need attention, ranked, with the evidence." },
  params: z.strictObject({}),
  output: { version: "v1", schema: weakPointsSchema },
  qualityRules: {},
});
