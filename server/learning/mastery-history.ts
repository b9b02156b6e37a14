import { getDb } from "../db";
import { learningAnalysisSchema } from "../jobs/schemas";

/** How many past analyses the chart draws: about a year of weekly analysess. */
export const MASTERY_HISTORY_LIMIT = 60;

export type MasterySeries = {
  knowledgePointId: string;
  title: string;
  points: { at: Date; mastery: number; jobId: string }[];
};

/**
 * Mastery per topic across the learner's past learning-state analyses, oldest first: one series
 * per knowledge point, one point per analysis that covered it. Outputs that no longer parse are
 * skipped (they were valid v1 when stored; a later schema version must not break the chart).
 */
export async function getMasteryHistory(userId: string) {
  const rows = await getDb().aiRuntimeJob.findMany({
    where: { userId, jobType: "learning_state_analysis", status: "succeeded" },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: MASTERY_HISTORY_LIMIT,
    select: { id: true, finishedAt: true, createdAt: true, result: { select: { output: true } } },
  });
  const series = new Map<string, MasterySeries>();
  const overall: { at: Date; mastery: number; jobId: string }[] = [];
  for (const row of rows.reverse()) {
    const parsed = learningAnalysisSchema.safeParse(row.result?.output);
    if (!parsed.success) continue;
    const at = row.finishedAt ?? row.createdAt;
    overall.push({ at, mastery: parsed.data.overallMastery, jobId: row.id });
    for (const k of parsed.data.knowledgePoints) {
      const s = series.get(k.knowledgePointId) ?? { knowledgePointId: k.knowledgePointId, title: k.title, points: [] };
      s.title = k.title; // the newest title wins
      s.points.push({ at, mastery: k.mastery, jobId: row.id });
      series.set(k.knowledgePointId, s);
    }
  }
  return {
    analyses: overall.length,
    overall,
    topics: [...series.values()].sort((a, b) => a.title.localeCompare(b.title)),
  };
}
