import { z } from "zod";
import { TargetType, type JobType } from "../generated/prisma/enums";
import type { JobTypeDefinition } from "./define";
import { flashcardGeneration } from "./flashcard-generation";
import { knowledgePointExtraction } from "./knowledge-point-extraction";
import { learningStateAnalysis } from "./learning-state-analysis";
import { nextActionPlanning } from "./next-action-planning";
import { quizGeneration } from "./quiz-generation";
import { weakPointAnalysis } from "./weak-point-analysis";

/**
 * The job-type registry: one line per type, in the order the learner page shows them. The keys
 * are the Postgres enum's values (`satisfies` refuses a missing or an extra one at compile time;
 * tests/job-types/registry.test.ts checks the database's enum too).
 */
export const JOB_TYPE_REGISTRY = {
  learning_state_analysis: learningStateAnalysis,
  weak_point_analysis: weakPointAnalysis,
  next_action_planning: nextActionPlanning,
  quiz_generation: quizGeneration,
  flashcard_generation: flashcardGeneration,
  knowledge_point_extraction: knowledgePointExtraction,
} satisfies Record<JobType, unknown>;

type Registry = typeof JOB_TYPE_REGISTRY;
export type JobTypeName = keyof Registry;
export type JobParams<T extends JobTypeName> = z.infer<Registry[T]["params"]>;
export type JobOutput<T extends JobTypeName> = z.infer<Registry[T]["output"]["schema"]>;

export const JOB_TYPES = Object.keys(JOB_TYPE_REGISTRY) as [JobTypeName, ...JobTypeName[]];
export const jobTypeSchema = z.enum(JOB_TYPES);

/** A type's module, seen through the definition every type satisfies (for code that handles any type). */
export function jobTypeOf(type: JobTypeName): JobTypeDefinition {
  return JOB_TYPE_REGISTRY[type] as unknown as JobTypeDefinition;
}

const mapTypes = <V>(f: (t: JobTypeName) => V) =>
  Object.fromEntries(JOB_TYPES.map((t) => [t, f(t)])) as { [T in JobTypeName]: V };

export const paramsSchemas = mapTypes((t) => JOB_TYPE_REGISTRY[t].params) as {
  [T in JobTypeName]: Registry[T]["params"];
};

/**
 * The output schemas by version, then type: what `outputSchemaVersion` selects. v2 (the current
 * one) names the points of learning-state strengths and risks and the due cards of a plan's
 * reviews by id and count, so the quality rules can check them against the snapshot; v1 results
 * are still accepted and shown.
 */
export const outputSchemas = {
  v1: mapTypes((t) => jobTypeOf(t).output.v1 ?? JOB_TYPE_REGISTRY[t].output.schema) as {
    [T in JobTypeName]: z.ZodType;
  },
  v2: mapTypes((t) => JOB_TYPE_REGISTRY[t].output.schema) as { [T in JobTypeName]: Registry[T]["output"]["schema"] },
} as const;
export type OutputSchemaVersion = keyof typeof outputSchemas;
/** The version new jobs are created with and the pipeline writes. */
export const OUTPUT_SCHEMA_VERSION = "v2" satisfies OutputSchemaVersion;

/** The types whose params have any field: the others take none. */
export const TYPES_WITH_PARAMS = JOB_TYPES.filter((t) => Object.keys(JOB_TYPE_REGISTRY[t].params.shape).length > 0);

export const JOB_TYPE_LABELS = mapTypes((t) => JOB_TYPE_REGISTRY[t].label);

/** The targets a type's jobs may be made on (its module's `targets`, else every target type). */
export const targetTypesOf = (type: JobTypeName): readonly TargetType[] =>
  jobTypeOf(type).targets ?? Object.values(TargetType);

/** The types that run on any target: the learner page's analysis cards ("Run all"); the others have their own place. */
export const ANY_TARGET_TYPES = JOB_TYPES.filter((t) => !jobTypeOf(t).targets);
