import { z } from "zod";
import { id, text } from "../fields";
import { catalogueEntry } from "../define";

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

/** The type as the browser and the contract see it: its label, targets, params, output and quality rules. */
export const flashcardGenerationEntry = catalogueEntry({
  label: { title: "Flashcards", blurb: "Cards to flip through and mark as known." },
  params: flashcardParamsSchema,
  output: { version: "v1", schema: flashcardsSchema },
  qualityRules: {
    count_mismatch: "Exactly `params.count` flashcards.",
    duplicate_front:
      "No two cards share a front (compared after Unicode NFKC normalisation, case- and space-insensitively, ignoring spaces next to Chinese characters and the final punctuation).",
  },
});

/**
 * The cards of a stored deck (an output that passed the API's checks), in order: what the
 * spaced-repetition schedule enrols. Anything that is not a deck has none.
 */
export function deckCards(output: unknown): { front: string; back: string; knowledgePointId: string }[] {
  const deck = flashcardsSchema.safeParse(output);
  if (!deck.success) return [];
  return deck.data.flashcards.map(({ front, back, knowledgePointId }) => ({ front, back, knowledgePointId }));
}
