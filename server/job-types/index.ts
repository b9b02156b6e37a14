import type { JobType } from "../generated/prisma/enums";
import { JOB_TYPE_CATALOGUE, type JobTypeName } from "./catalogue";
import type { JobTypeDefinition } from "./define";
import { flashcardGeneration } from "./flashcard-generation";
import { knowledgePointExtraction } from "./knowledge-point-extraction";
import { learningStateAnalysis } from "./learning-state-analysis";
import { nextActionPlanning } from "./next-action-planning";
import { quizGeneration } from "./quiz-generation";
import { weakPointAnalysis } from "./weak-point-analysis";

export * from "./catalogue";

/**
 * The job-type registry, server only: each type's catalogue entry (./catalogue.ts) with its
 * quality rules' code, its quality checks, its prompt and its local analyzer. The keys are the
 * Postgres enum's values (`satisfies` refuses a missing or an extra one at compile time;
 * tests/job-types/registry.test.ts checks the database's enum too, and that each type here is
 * its catalogue entry plus code).
 */
export const JOB_TYPE_REGISTRY = {
  learning_state_analysis: learningStateAnalysis,
  weak_point_analysis: weakPointAnalysis,
  next_action_planning: nextActionPlanning,
  quiz_generation: quizGeneration,
  flashcard_generation: flashcardGeneration,
  knowledge_point_extraction: knowledgePointExtraction,
} satisfies Record<JobType, unknown> & { [T in JobTypeName]: (typeof JOB_TYPE_CATALOGUE)[T] };

/** A type's module, seen through the definition every type satisfies (for code that handles any type). */
export function jobTypeOf(type: JobTypeName): JobTypeDefinition {
  return JOB_TYPE_REGISTRY[type] as unknown as JobTypeDefinition;
}
