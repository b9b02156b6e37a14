import { z } from "zod";
import { TargetType, type JobType } from "../generated/prisma/enums";
import { COMMON_QUALITY_RULES, type CatalogueEntry } from "./define";
import { flashcardGenerationEntry } from "./flashcard-generation/schema";
import { knowledgePointExtractionEntry } from "./knowledge-point-extraction/schema";
import { learningStateAnalysisEntry } from "./learning-state-analysis/schema";
import { nextActionPlanningEntry } from "./next-action-planning/schema";
import { quizGenerationEntry } from "./quiz-generation/schema";
import { weakPointAnalysisEntry } from "./weak-point-analysis/schema";

/**
 * The job-type catalogue: what the browser, the API's documents and every Runtime may know of
 * each type (its label, targets, params and output schemas, the prose of its quality rules), one
 * line per type in the order the learner page shows them. Pure zod and text: it never reaches a
 * type's analyzer (jieba, compromise), so the browser imports it as it is. The keys are the
 * Postgres enum's values (`satisfies` refuses a missing or an extra one at compile time); the
 * server's registry (./index.ts) adds each type's checks, prompt and analyzer to these entries.
 */
export const JOB_TYPE_CATALOGUE = {
  learning_state_analysis: learningStateAnalysisEntry,
  weak_point_analysis: weakPointAnalysisEntry,
  next_action_planning: nextActionPlanningEntry,
  quiz_generation: quizGenerationEntry,
  flashcard_generation: flashcardGenerationEntry,
  knowledge_point_extraction: knowledgePointExtractionEntry,
} satisfies Record<JobType, unknown>;

type Catalogue = typeof JOB_TYPE_CATALOGUE;
export type JobTypeName = keyof Catalogue;
export type JobParams<T extends JobTypeName> = z.infer<Catalogue[T]["params"]>;
export type JobOutput<T extends JobTypeName> = z.infer<Catalogue[T]["output"]["schema"]>;

export const JOB_TYPES = Object.keys(JOB_TYPE_CATALOGUE) as [JobTypeName, ...JobTypeName[]];
export const jobTypeSchema = z.enum(JOB_TYPES);

/** A type's entry, seen through the shape every entry has (for code that handles any type). */
export function entryOf(type: JobTypeName): CatalogueEntry {
  return JOB_TYPE_CATALOGUE[type] as unknown as CatalogueEntry;
}

const mapTypes = <V>(f: (t: JobTypeName) => V) =>
  Object.fromEntries(JOB_TYPES.map((t) => [t, f(t)])) as { [T in JobTypeName]: V };

export const paramsSchemas = mapTypes((t) => JOB_TYPE_CATALOGUE[t].params) as {
  [T in JobTypeName]: Catalogue[T]["params"];
};

/**
 * The output schemas by version, then type: what `outputSchemaVersion` selects. v2 (the current
 * one) names the points of learning-state strengths and risks and the due cards of a plan's
 * reviews, so the evidence rules (./evidence) can check them against the snapshot; v1 results are
 * still accepted and shown.
 */
export const outputSchemas = {
  v1: mapTypes((t) => entryOf(t).output.v1 ?? JOB_TYPE_CATALOGUE[t].output.schema) as {
    [T in JobTypeName]: z.ZodType;
  },
  v2: mapTypes((t) => JOB_TYPE_CATALOGUE[t].output.schema) as { [T in JobTypeName]: Catalogue[T]["output"]["schema"] },
} as const;
export type OutputSchemaVersion = keyof typeof outputSchemas;
/** Every output schema version, oldest first: what `outputSchemaVersion` may say. */
export const OUTPUT_SCHEMA_VERSIONS = Object.keys(outputSchemas) as [OutputSchemaVersion, ...OutputSchemaVersion[]];
export const outputSchemaVersionSchema = z.enum(OUTPUT_SCHEMA_VERSIONS);
/** The version new jobs are created with and the pipeline writes. */
export const OUTPUT_SCHEMA_VERSION = "v2" satisfies OutputSchemaVersion;

/** A finished job's output, parsed with its type's current schema (the learner page's views read it so). */
export const parseOutput = <T extends JobTypeName>(type: T, output: unknown) =>
  outputSchemas.v2[type].parse(output) as JobOutput<T>;

/** The types whose params have any field: the others take none. */
export const TYPES_WITH_PARAMS = JOB_TYPES.filter((t) => Object.keys(JOB_TYPE_CATALOGUE[t].params.shape).length > 0);

export const JOB_TYPE_LABELS = mapTypes((t) => JOB_TYPE_CATALOGUE[t].label);

/** The targets a type's jobs may be made on (its entry's `targets`, else every target type). */
export const targetTypesOf = (type: JobTypeName): readonly TargetType[] =>
  entryOf(type).targets ?? Object.values(TargetType);

/** The types that run on any target: the learner page's analysis cards ("Run all"); the others have their own place. */
export const ANY_TARGET_TYPES = JOB_TYPES.filter((t) => !entryOf(t).targets);

/** The rule names a rejection can carry (zod's issue codes appear as `schema.<code>`): the common ones, then each type's. */
export const QUALITY_RULES = [
  ...new Set([...Object.keys(COMMON_QUALITY_RULES), ...JOB_TYPES.flatMap((t) => Object.keys(entryOf(t).qualityRules))]),
];
