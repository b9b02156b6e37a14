import { z } from "zod";
import { id, text, unit } from "../fields";
import { catalogueEntry } from "../define";

const knowledgePoints = z
  .array(
    z.strictObject({
      knowledgePointId: id,
      title: text(300),
      mastery: unit,
      confidence: unit,
      attempts: z.number().int().min(0),
    }),
  )
  .max(500);

/** The first version: strengths and risks as free sentences (results stored as v1 are still read and shown). */
export const learningAnalysisV1Schema = z.strictObject({
  summary: text(2000),
  overallMastery: unit,
  engagementLevel: z.enum(["low", "medium", "high"]),
  strengths: z.array(text(300)).max(20),
  risks: z.array(text(300)).max(20),
  knowledgePoints,
});
export type LearningAnalysisV1 = z.infer<typeof learningAnalysisV1Schema>;

/**
 * v2: each strength names its knowledge point by id, each risk too unless it is about the learner
 * as a whole (little study, a long absence: null), and the point the summary calls strongest is
 * named (null: none), so the quality rules can hold them against the evidence.
 */
export const learningAnalysisSchema = z.strictObject({
  summary: text(2000),
  overallMastery: unit,
  engagementLevel: z.enum(["low", "medium", "high"]),
  strongestKnowledgePointId: id.nullable(),
  strengths: z.array(z.strictObject({ knowledgePointId: id, text: text(300) })).max(20),
  risks: z.array(z.strictObject({ knowledgePointId: id.nullable(), text: text(300) })).max(20),
  knowledgePoints,
});
export type LearningAnalysis = z.infer<typeof learningAnalysisSchema>;

/** A stored result of either version, as the learner page reads it. */
export type AnyLearningAnalysis = LearningAnalysis | LearningAnalysisV1;
/** A strength's or risk's sentence, whichever version it came in. */
export const itemText = (item: string | { text: string }) => (typeof item === "string" ? item : item.text);

/** The type as the browser and the contract see it: its label, targets, params, output and quality rules. */
export const learningStateAnalysisEntry = catalogueEntry({
  label: { title: "Learning state", blurb: "How well you know each topic, and how engaged you have been." },
  params: z.strictObject({}),
  output: { version: "v2", schema: learningAnalysisSchema, v1: learningAnalysisV1Schema },
  qualityRules: {},
});
