import { z } from "zod";

/**
 * The pieces every job type's schemas are built from, and the snapshot a job reads. Pure zod,
 * no server imports: the learner's browser, the reference Runtime and the API all load them.
 */
export const id = z.string().min(1).max(64);
export const text = (max: number) => z.string().trim().min(1).max(max);
export const unit = z.number().min(0).max(1);

export const questionTypeSchema = z.enum(["single_choice", "true_false", "short_answer"]);
export const difficultySchema = z.enum(["easy", "medium", "hard"]);

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
});
export type SnapshotContent = z.infer<typeof snapshotContentSchema>;

/** Trimmed, lower-cased, single-spaced: how two texts are compared for "the same". */
export const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");

/** The normalised values that occur more than once. */
export function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of values.map(norm)) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}
