import { z } from "zod";

/**
 * The pieces every job type's schemas are built from, and the snapshot a job reads. Pure zod,
 * no server imports: the learner's browser, the reference Runtime and the API all load them.
 */
export const id = z.string().min(1).max(64);
/**
 * A text field of at most `max` characters as a reader counts them (graphemes: a Chinese
 * character or an emoji is one, however many UTF-16 units it takes), and at most 10·max UTF-16
 * units whatever it is made of (a grapheme can stack any number of combining marks; the longest
 * emoji sequences take about 10). Too long is
 * zod's `too_big`, as a plain `.max` would report it; the JSON Schema says `maxLength: max`.
 */
export const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .superRefine((s, ctx) => {
      if (s.length <= max) return;
      if (s.length > 10 * max || graphemes(s) > max)
        ctx.addIssue({
          code: "too_big",
          maximum: max,
          origin: "string",
          inclusive: true,
          input: s,
          message: `Too big: expected string to have <=${max} characters`,
        });
    })
    .meta({ maxLength: max });
export const unit = z.number().min(0).max(1);

export const questionTypeSchema = z.enum(["single_choice", "true_false", "short_answer"]);
export const difficultySchema = z.enum(["easy", "medium", "hard"]);

const count = z.number().int().min(0);

/**
 * What the learner's review log says about each knowledge point of the snapshot that has cards in
 * their spaced-repetition schedule (server/review). Predicted recall is as of `asOf`, the end of
 * the capture's UTC day (captures on one day with unchanged reviews share it); `dueCards` counts
 * the cards due at the capture and not set aside (suspended, buried), as the learner model
 * (server/learner-model) and Review count them. Absent when no card of the target's knowledge points is in the schedule (and
 * in snapshots captured before the snapshot carried it): every reader treats it as optional.
 */
export const reviewEvidenceSchema = z.object({
  asOf: z.iso.datetime(),
  knowledgePoints: z.array(
    z.object({
      knowledgePointId: id,
      /** Cards of this point in the schedule, and how many of them were due at the capture, not suspended nor buried (as Review counts). */
      cards: count,
      dueCards: count,
      /** Reviews in the log, how many were rated Again, and the cards whose latest review was Again. */
      reviews: count,
      again: count,
      forgotten: count,
      /** FSRS lapses: times a learnt card was forgotten. */
      lapses: count,
      /** Mean predicted recall (FSRS retrievability) of the reviewed cards at `asOf`; null before any review. */
      retrievability: unit.nullable(),
      lastReviewedAt: z.iso.datetime().nullable(),
    }),
  ),
  /**
   * The learner model's day at the capture, over the target's cards, as Review and the page's top
   * line state it: cards Review offers now under today's limits, the further cards due later in
   * her day (her time zone), and cards due now held back by the limits. Suspended and buried cards
   * are in none. Absent in snapshots captured before the snapshot carried it.
   */
  today: z.object({ timeZone: z.string().max(64), now: count, laterToday: count, heldBack: count }).optional(),
});
export type ReviewEvidence = z.infer<typeof reviewEvidenceSchema>;

export const snapshotContentSchema = z.object({
  version: z.literal(1),
  learner: z.object({ id, name: z.string() }),
  target: z.object({ type: z.enum(["user", "material", "knowledge_point"]), id, title: z.string() }),
  materials: z.array(z.object({ id, title: z.string(), content: z.string() })),
  knowledgePoints: z.array(z.object({ id, title: z.string(), description: z.string(), materialId: id.nullable() })),
  quizAttempts: z.array(
    z.object({ knowledgePointId: id, question: z.string(), correct: z.boolean(), answeredAt: z.iso.datetime() }),
  ),
  studySessions: z.array(
    z.object({ materialId: id.nullable(), startedAt: z.iso.datetime(), minutes: z.number().int().min(0) }),
  ),
  reviews: reviewEvidenceSchema.optional(),
});
export type SnapshotContent = z.infer<typeof snapshotContentSchema>;

/** Han and kana, and CJK punctuation: written without spaces between words (Korean has spaces). */
const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u3000-\\u303f";
const SPACE_BY_CJK = new RegExp(`(?<=[${CJK}])\\s+|\\s+(?=[${CJK}])`, "gu");
const END_PUNCTUATION = /[\s.!?。！？…]+$/u;

/**
 * How two texts are compared for "the same": Unicode NFKC (full-width letters, digits and
 * punctuation become their plain forms: "Ａ？" is "A?"), lower-cased, single-spaced, no spaces
 * next to Chinese or Japanese characters (which are written without them: "光合 作用" is
 * "光合作用"), and no sentence punctuation at the end ("什么是光合作用？" is "什么是光合作用").
 */
export const norm = (s: string) =>
  s.normalize("NFKC").trim().toLowerCase().replace(/\s+/g, " ").replace(SPACE_BY_CJK, "").replace(END_PUNCTUATION, "");

let segmenter: Intl.Segmenter | undefined;
/** A text's length as a reader counts it: user-perceived characters (a CJK character, an emoji with its modifiers: 1 each). */
export function graphemes(s: string): number {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let n = 0;
  for (const _ of segmenter.segment(s)) n++;
  return n;
}

/** True when the text has Chinese or Japanese characters (or their punctuation). */
export const hasCjk = (s: string) => new RegExp(`[${CJK}]`, "u").test(s);

/** The normalised values that occur more than once. */
export function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of values.map(norm)) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}
