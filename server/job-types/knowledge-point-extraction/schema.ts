import { z } from "zod";
import { text } from "../fields";
import { catalogueEntry } from "../define";

/** The longest passage a knowledge point quotes from its material. */
export const PASSAGE_MAX = 1000;

export const kpExtractionSchema = z.strictObject({
  knowledgePoints: z
    .array(
      z.strictObject({
        title: text(200),
        /** One line. */
        summary: text(300),
        keyTerms: z.array(text(60)).min(1).max(8),
        /** A verbatim quote of the target material's text (compared with whitespace removed). */
        passage: text(PASSAGE_MAX),
      }),
    )
    .min(1)
    .max(20),
});
export type KpExtraction = z.infer<typeof kpExtractionSchema>;

export const kpExtractionParamsSchema = z.strictObject({
  maxPoints: z.number().int().min(1).max(20).default(8),
});
export type KpExtractionParams = z.infer<typeof kpExtractionParamsSchema>;

/** The type as the browser and the contract see it: its label, targets, params, output and quality rules. */
export const knowledgePointExtractionEntry = catalogueEntry({
  label: {
    title: "Knowledge points from a material",
    blurb: "Proposes the knowledge points of one material, each with the passage it comes from, for you to accept.",
  },
  targets: ["material"],
  params: kpExtractionParamsSchema,
  output: { version: "v1", schema: kpExtractionSchema },
  qualityRules: {
    too_many_points: "At most `params.maxPoints` knowledge points.",
    duplicate_title: "No two knowledge points share a title (compared trimmed, case- and space-insensitively).",
    passage_not_grounded:
      "Every `passage` occurs in the target material's text in the job's snapshot (compared with all whitespace removed).",
  },
});
