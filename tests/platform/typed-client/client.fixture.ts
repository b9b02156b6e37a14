/**
 * Compiled by tests/platform/openapi.test.ts beside `./platform-api.d.ts`, which openapi-typescript
 * generates from the platform API's OpenAPI document. Every `@ts-expect-error` line is something
 * the typed client must refuse: if the document let it through, the directive would be unused and
 * the compile would fail. (Excluded from the project's own typecheck: the generated file exists
 * only in the test's folder.)
 */
import type { components, paths } from "./platform-api";

type S = components["schemas"];
type StartJob = paths["/api/v1/learners/{externalId}/jobs"]["post"]["requestBody"]["content"]["application/json"];
type ReadJob = paths["/api/v1/jobs/{jobId}"]["get"]["responses"][200]["content"]["application/json"];
type Started = paths["/api/v1/learners/{externalId}/jobs"]["post"]["responses"][201]["content"]["application/json"];

export const quiz: StartJob = { jobType: "quiz_generation", target: { type: "user" }, params: { count: 5, difficulty: "hard", questionTypes: ["single_choice"] } };
export const extraction: StartJob = { jobType: "knowledge_point_extraction", target: { type: "material", externalId: "m-1" }, params: { maxPoints: 4 } };
export const defaults: StartJob = { jobType: "flashcard_generation", target: { type: "knowledge_point", externalId: "kp-1" }, params: {} };
export const noParams: StartJob = { jobType: "weak_point_analysis", target: { type: "user" } };

export const wrongStarts: StartJob[] = [
  // @ts-expect-error a quiz's count is a number
  { jobType: "quiz_generation", target: { type: "user" }, params: { count: "five" } },
  // @ts-expect-error a difficulty the quiz does not have
  { jobType: "quiz_generation", target: { type: "user" }, params: { difficulty: "brutal" } },
  // @ts-expect-error flashcards have no difficulty
  { jobType: "flashcard_generation", target: { type: "user" }, params: { count: 3, difficulty: "hard" } },
  // @ts-expect-error a type without params takes none
  { jobType: "weak_point_analysis", target: { type: "user" }, params: { count: 3 } },
  // @ts-expect-error knowledge points are extracted from a material only
  { jobType: "knowledge_point_extraction", target: { type: "user" } },
  // @ts-expect-error a type the API does not have
  { jobType: "essay_grading", target: { type: "user" } },
];

/** A job's output is its type's, told apart by `jobType`. */
export function itemsOf(job: ReadJob): number {
  if (!job.output) return 0;
  if (job.jobType === "quiz_generation") return job.output.questions.length;
  if (job.jobType === "knowledge_point_extraction") return job.output.knowledgePoints.length;
  // @ts-expect-error a flashcard job's output has no questions
  if (job.jobType === "flashcard_generation") return job.output.questions.length;
  // @ts-expect-error a next-action job runs on a learner, a material or a knowledge point, never a course
  if (job.jobType === "next_action_planning" && job.target.type === "course") return -1;
  return 0;
}
export const startedQuestions = (answer: Started) => (answer.job.jobType === "quiz_generation" ? answer.job.output?.questions : null);

type QuizOutput = NonNullable<S["QuizGenerationJob"]["output"]>;
export const oneQuestion: QuizOutput = { questions: [{ type: "true_false", stem: "S", options: ["True", "False"], answer: "True", explanation: "E", knowledgePointId: "kp", difficulty: "easy" }] };
export const wrongOutputs: QuizOutput[] = [
  // @ts-expect-error a question without its answer
  { questions: [{ type: "true_false", stem: "S", options: ["True", "False"], explanation: "E", knowledgePointId: "kp", difficulty: "easy" }] },
  // @ts-expect-error a question type the schema does not have
  { questions: [{ type: "essay", stem: "S", options: [], answer: "A", explanation: "E", knowledgePointId: "kp", difficulty: "easy" }] },
  // @ts-expect-error a field the quiz's output does not name
  { questions: [], verdict: "fine" },
];
// @ts-expect-error a weak-point job's output is not a quiz
export const mixedUp: S["WeakPointAnalysisJob"]["output"] = oneQuestion;
