import { createHash } from "node:crypto";
import { norm } from "../job-types/fields";
import type { DbOrTx } from "../db";

/**
 * A generated card's identity, apart from the text she may give it: the job type that makes
 * such cards, its knowledge point, and the front it was generated with (normalised as the quality
 * rules compare texts). Every later deck or quiz that generates the same card names the same
 * key, so her edit, her suspension and her deletion (a tombstone) are found by it, not by text.
 */
export function sourceKeyOf(kind: "flashcard" | "question", knowledgePointId: string | null, generatedFront: string) {
  const type = kind === "flashcard" ? "flashcard_generation" : "quiz_generation";
  const digest = createHash("sha256")
    .update(`${knowledgePointId ?? ""}\u0000${norm(generatedFront)}`)
    .digest("hex")
    .slice(0, 32);
  return `${type}:${digest}`;
}

/** Of these keys, the ones she deleted. */
export async function tombstoned(db: DbOrTx, userId: string, keys: string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const rows = await db.reviewCardTombstone.findMany({
    where: { userId, sourceKey: { in: [...new Set(keys)] } },
    select: { sourceKey: true },
  });
  return new Set(rows.map((r) => r.sourceKey));
}
