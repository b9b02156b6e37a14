import { z } from "zod";
import { text } from "../fields";

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
