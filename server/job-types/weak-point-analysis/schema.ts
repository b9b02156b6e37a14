import { z } from "zod";
import { id, text } from "../fields";

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
