import { z } from "zod";
import { analyseLearningState } from "../providers/local/learning-state";
import { defineJobType } from "./define";
import { id, text, unit } from "./fields";

export const learningAnalysisSchema = z.strictObject({
  summary: text(2000),
  overallMastery: unit,
  engagementLevel: z.enum(["low", "medium", "high"]),
  strengths: z.array(text(300)).max(20),
  risks: z.array(text(300)).max(20),
  knowledgePoints: z
    .array(
      z.strictObject({
        knowledgePointId: id,
        title: text(300),
        mastery: unit,
        confidence: unit,
        attempts: z.number().int().min(0),
      }),
    )
    .max(500),
});
export type LearningAnalysis = z.infer<typeof learningAnalysisSchema>;

export const learningStateAnalysis = defineJobType({
  label: { title: "Learning state", blurb: "How well you know each topic, and how engaged you have been." },
  params: z.strictObject({}),
  output: { version: "v1", schema: learningAnalysisSchema },
  qualityRules: {},
  quality(v, check) {
    v.knowledgePoints.forEach((k, i) => check.knowledgePoint(`knowledgePoints.${i}`, k.knowledgePointId));
  },
  review(v, { snapshot }) {
    const findings: string[] = [];
    const seen = new Map<string, number>();
    for (const k of v.knowledgePoints) seen.set(k.knowledgePointId, (seen.get(k.knowledgePointId) ?? 0) + 1);
    for (const kp of snapshot.knowledgePoints) {
      const n = seen.get(kp.id) ?? 0;
      if (n !== 1) findings.push(`knowledgePoints: ${kp.id} ("${kp.title}") must appear exactly once, found ${n}`);
    }
    return findings;
  },
  prompt: {
    task: "Analyse the learner's state: a short summary, overall mastery 0..1, engagement level, strengths, risks, and for every knowledge point its mastery 0..1 (recent answers count more), a confidence 0..1 that grows with the number of answers, and the number of answers.",
  },
  analyse: (snapshot, _params, asOf, locale) => analyseLearningState(snapshot, asOf, locale),
});
