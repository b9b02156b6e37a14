/**
 * The job contract shared by the API, the pipeline and every Runtime: parameters per job type,
 * the snapshot a job reads, and the `v1` output of each job type. Each type's schemas live in its
 * own module under server/job-types/; this file gathers them for the code that handles any type.
 */
export {
  JOB_TYPES,
  jobTypeSchema,
  outputSchemas,
  paramsSchemas,
  type JobOutput,
  type JobParams,
  type JobTypeName,
  type OutputSchemaVersion,
} from "../job-types/catalogue";
export { difficultySchema, questionTypeSchema, snapshotContentSchema, type SnapshotContent } from "../job-types/fields";
export { flashcardsSchema, type Flashcards } from "../job-types/flashcard-generation/schema";
export { learningAnalysisSchema, type LearningAnalysis } from "../job-types/learning-state-analysis/schema";
export { nextActionsSchema, type NextActions } from "../job-types/next-action-planning/schema";
export { quizSchema, type Quiz } from "../job-types/quiz-generation/schema";
export { weakPointsSchema, type WeakPoints } from "../job-types/weak-point-analysis/schema";
