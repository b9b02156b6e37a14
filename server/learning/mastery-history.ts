import { getDb } from "../db";
import { learningAnalysisSchema } from "../jobs/schemas";
import { learningAnalysisV1Schema } from "../job-types/learning-state-analysis";

/** How many past analyses the chart draws: about a year of weekly analysess. */
export const MASTERY_HISTORY_LIMIT = 60;

export type MasterySeries = {
  knowledgePointId: string;
  title: string;
  points: { at: Date; mastery: number; jobId: string; degraded: boolean }[];
};

/**
 * Mastery per topic across the learner's past learning-state analyses, oldest first: one series
 * per knowledge point, one point per analysis that covered it: the very numbers each analysis
 * showed (its mastery from answers and reviews together). v1 and v2 results both count; outputs
 * that parse as neither are skipped (a later schema version must not break the chart). An analysis
 * stored degraded (it broke a quality or evidence rule) is flagged on each of its points
 * (`degraded`): the chart draws them as unverified, never as plain facts; `unverified` counts them.
 */
export async function getMasteryHistory(userId: string) {
  const rows = await getDb().aiRuntimeJob.findMany({
    where: { userId, jobType: "learning_state_analysis", status: "succeeded" },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: MASTERY_HISTORY_LIMIT,
    select: { id: true, finishedAt: true, createdAt: true, result: { select: { output: true, degraded: true } } },
  });
  const series = new Map<string, MasterySeries>();
  const overall: { at: Date; mastery: number; jobId: string; degraded: boolean }[] = [];
  let unverified = 0;
  for (const row of rows.reverse()) {
    const degraded = row.result?.degraded ?? false;
    const v2 = learningAnalysisSchema.safeParse(row.result?.output);
    const parsed = v2.success ? v2 : learningAnalysisV1Schema.safeParse(row.result?.output);
    if (!parsed.success) continue;
    const at = row.finishedAt ?? row.createdAt;
    if (degraded) unverified++;
    overall.push({ at, mastery: parsed.data.overallMastery, jobId: row.id, degraded });
    for (const k of parsed.data.knowledgePoints) {
      const s = series.get(k.knowledgePointId) ?? { knowledgePointId: k.knowledgePointId, title: k.title, points: [] };
      s.title = k.title; // the newest title wins
      s.points.push({ at, mastery: k.mastery, jobId: row.id, degraded });
      series.set(k.knowledgePointId, s);
    }
  }
  return {
    analyses: overall.length,
    unverified,
    overall,
    topics: [...series.values()].sort((a, b) => a.title.localeCompare(b.title)),
  };
}
