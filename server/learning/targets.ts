import { getDb } from "../db";

/**
 * What a learner can analyse (docs/contract.md#who-uses-it): themself, each of their materials, each knowledge point.
 * Knowledge points come grouped under their material; ones without a material are listed apart.
 */
export async function listTargets(userId: string) {
  const db = getDb();
  const [user, materials, knowledgePoints] = await Promise.all([
    db.user.findUniqueOrThrow({ where: { id: userId }, select: { id: true, name: true } }),
    db.material.findMany({
      where: { userId },
      select: { id: true, title: true },
      orderBy: [{ title: "asc" }, { id: "asc" }],
    }),
    db.knowledgePoint.findMany({
      where: { userId },
      select: { id: true, title: true, materialId: true },
      orderBy: [{ title: "asc" }, { id: "asc" }],
    }),
  ]);
  const kpOf = (materialId: string | null) =>
    knowledgePoints.filter((k) => k.materialId === materialId).map(({ id, title }) => ({ id, title }));
  return {
    learner: user,
    materials: materials.map((m) => ({ ...m, knowledgePoints: kpOf(m.id) })),
    looseKnowledgePoints: kpOf(null),
  };
}
