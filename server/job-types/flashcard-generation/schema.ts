import { z } from "zod";
import { id, text } from "../fields";

export const flashcardsSchema = z.strictObject({
  flashcards: z
    .array(
      z.strictObject({
        front: text(500),
        back: text(2000),
        knowledgePointId: id,
        tags: z.array(text(50)).max(10),
      }),
    )
    .min(1)
    .max(50),
});
export type Flashcards = z.infer<typeof flashcardsSchema>;

export const flashcardParamsSchema = z.strictObject({
  count: z.number().int().min(1).max(50).default(10),
});
export type FlashcardParams = z.infer<typeof flashcardParamsSchema>;
