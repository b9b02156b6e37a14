import crypto from "node:crypto";
import type { z } from "zod";
import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import type { materialAnswer, materialBody } from "./schemas";

type MaterialInput = z.infer<typeof materialBody>;

/**
 * Creates or updates a learner's material and its knowledge points, by the platform's ids
 * (PUT /api/v1/learners/{id}/materials/{materialId}), in one transaction. The material's upsert is
 * one INSERT … ON CONFLICT on (userId, externalId): concurrent PUTs of one material make one row,
 * and the row lock it takes holds the second PUT until the first commits, so their knowledge
 * point sets never interleave. The set is the full one: the material's other knowledge points
 * are removed (with their quiz attempts); one of another material of this learner moves here.
 */
export async function upsertMaterial(
  userId: string,
  externalId: string,
  input: MaterialInput,
): Promise<z.infer<typeof materialAnswer>> {
  const at = now();
  const kps = [...input.knowledgePoints].sort((a, b) => (a.externalId < b.externalId ? -1 : 1));
  return getDb().$transaction(async (tx) => {
    const [material] = await tx.$queryRaw<{ id: string; created: boolean }[]>`
      INSERT INTO "Material" (id, "userId", "externalId", title, content, "createdAt")
      VALUES (${crypto.randomUUID()}, ${userId}, ${externalId}, ${input.title}, ${input.text}, ${at}::timestamp(3))
      ON CONFLICT ("userId", "externalId") DO UPDATE SET title = EXCLUDED.title, content = EXCLUDED.content
      RETURNING id, (xmax = 0) AS created`;
    const materialId = material!.id;
    if (kps.length) {
      // Sorted by external id, so two transactions touching the same knowledge points lock them in one order.
      await tx.$executeRaw`
        INSERT INTO "KnowledgePoint" (id, "userId", "materialId", "externalId", title, description, "createdAt")
        SELECT gen_random_uuid()::text, ${userId}, ${materialId}, k.ext, k.title, COALESCE(k.description, ''), ${at}::timestamp(3)
        FROM unnest(${kps.map((k) => k.externalId)}::text[], ${kps.map((k) => k.title)}::text[],
                    ${kps.map((k) => k.description ?? null)}::text[]) WITH ORDINALITY AS k(ext, title, description, n)
        ORDER BY k.n
        ON CONFLICT ("userId", "externalId") DO UPDATE SET
          "materialId" = EXCLUDED."materialId",
          title = EXCLUDED.title,
          -- A description left out (or empty) keeps the one stored, which a learner may have written.
          description = CASE WHEN EXCLUDED.description = '' THEN "KnowledgePoint".description ELSE EXCLUDED.description END`;
    }
    const keep = kps.map((k) => k.externalId);
    const removed = await tx.$executeRaw`
      DELETE FROM "KnowledgePoint" WHERE "userId" = ${userId} AND "materialId" = ${materialId}
        AND ("externalId" IS NULL OR NOT ("externalId" = ANY(${keep}::text[])))`;
    return {
      externalId,
      title: input.title,
      knowledgePoints: kps.map((k) => ({ externalId: k.externalId, title: k.title })),
      removedKnowledgePoints: removed,
      created: material!.created,
    };
  });
}

/** The learner's materials and knowledge points by the platform's ids → our ids (unknown ones left out). */
export async function internalIds(userId: string, kind: "material" | "knowledge_point", externalIds: string[]) {
  if (!externalIds.length) return new Map<string, string>();
  const table = kind === "material" ? Prisma.sql`"Material"` : Prisma.sql`"KnowledgePoint"`;
  const rows = await getDb().$queryRaw<{ id: string; externalId: string }[]>`
    SELECT id, "externalId" FROM ${table} WHERE "userId" = ${userId} AND "externalId" = ANY(${[...new Set(externalIds)]}::text[])`;
  return new Map(rows.map((r) => [r.externalId, r.id]));
}
