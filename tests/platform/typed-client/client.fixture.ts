/**
 * Compiled by tests/platform/openapi-client.test.ts beside `./platform-api.d.ts`, which
 * openapi-typescript generates from the platform API's OpenAPI document. Every `@ts-expect-error`
 * line is something the typed client must refuse: if the document let it through, the directive
 * would be unused and the compile would fail. (Excluded from the project's own typecheck: the
 * generated file exists only in the test's folder.) The calls go through openapi-fetch, as a
 * platform's client would make them.
 */
import createClient from "openapi-fetch";
import type { components, paths, webhooks } from "./platform-api";

type S = components["schemas"];
type Json<R> = R extends { content: { "application/json": infer A } } ? A : never;
type Answer<P extends keyof paths, M extends keyof paths[P], Status extends number> = paths[P][M] extends { responses: infer R } ? (Status extends keyof R ? Json<R[Status]> : never) : never;
type StartJobLimited = Answer<"/api/v1/learners/{externalId}/jobs", "post", 429>;
type Hook = NonNullable<webhooks["jobFinished"]["post"]>["requestBody"]["content"]["application/json"];

/** A 429 says when to come back: the rate limit's seconds, or the learner's quota window. */
export function retryAt(answer: StartJobLimited, now: number): number {
  if (answer.error.code === "RATE_LIMITED") return now + answer.error.details.retryAfterSeconds * 1000;
  return Date.parse(answer.error.details.resetsAt);
}
export const quota: StartJobLimited = { error: { code: "QUOTA_EXCEEDED", message: "", details: { metric: "jobs", period: "day", allowed: 5, used: 5, resetsAt: "2026-12-07T00:00:00Z" } } };
// @ts-expect-error RATE_LIMITED always says how long to wait
export const rateLimited: StartJobLimited = { error: { code: "RATE_LIMITED", message: "" } };
// @ts-expect-error a quota period the API does not have
export const weekly: StartJobLimited = { error: { code: "QUOTA_EXCEEDED", message: "", details: { metric: "jobs", period: "week", allowed: 5, used: 5, resetsAt: "" } } };
// @ts-expect-error a code no route has
export const misspelt: StartJobLimited = { error: { code: "RATE_LIMIT", message: "" } };
// @ts-expect-error reading a job answers JOB_NOT_FOUND, never a learner's NOT_FOUND
export const wrongNotFound: Answer<"/api/v1/jobs/{jobId}", "get", 404> = { error: { code: "NOT_FOUND", message: "" } };
// @ts-expect-error NOT_FOUND carries no details
export const notFoundDetails: Answer<"/api/v1/learners/{externalId}/export", "get", 404> = { error: { code: "NOT_FOUND", message: "", details: { externalId: "x" } } };
// @ts-expect-error a 413 names its limit
export const tooLarge: Answer<"/api/v1/learners/{externalId}/materials/{materialId}", "put", 413> = { error: { code: "PAYLOAD_TOO_LARGE", message: "", details: { path: "text" } } };
// @ts-expect-error INVALID_REQUEST's details are the fields at fault, not a sentence
export const invalid: Answer<"/api/v1/learners/{externalId}", "put", 400> = { error: { code: "INVALID_REQUEST", message: "", details: "name is empty" } };
export const invalidFields: Answer<"/api/v1/learners/{externalId}", "put", 400> = { error: { code: "INVALID_REQUEST", message: "", details: [{ path: "name", message: "must not be empty" }] } };
// @ts-expect-error a job that cannot be cancelled says its status, one of the job statuses
export const cancelConflict: Answer<"/api/v1/jobs/{jobId}/cancel", "post", 409> = { error: { code: "JOB_NOT_CANCELLABLE", message: "", details: { status: "done" } } };

/** Cancel answers the job: cancelled, or asked to stop. */
export function stopped(job: Answer<"/api/v1/jobs/{jobId}/cancel", "post", 200>): boolean {
  return job.status === "cancelled" || job.cancelRequested;
}

/** A pending job may carry its last attempt's error: a failure code. */
export function retrying(job: S["GetJobAnswer"]): boolean {
  // @ts-expect-error not a failure code
  if (job.error?.code === "TIMEOUT") return true;
  return job.status === "pending" && job.error?.code === "MODEL_TIMEOUT";
}

/** The export, section by section. */
export function texts(data: S["ExportLearnerAnswer"]): string[] {
  const attempts = data.quizAttempts.filter((a) => a.correct).length;
  // @ts-expect-error a section the export does not have
  const grades = data.grades;
  // @ts-expect-error a material's text is `text`
  const content: string = data.materials[0]!.content;
  return [...data.materials.map((m) => m.text), String(attempts), String(grades), content];
}

/** The webhook's body: the job as it finished, with the platform's id of the learner. */
export function onFinished(hook: Hook): string | null {
  // @ts-expect-error a finished job is never "done"
  if (hook.job.status === "done") return null;
  return hook.type === "ai.job.finished" ? hook.job.learnerExternalId : null;
}

/** A job started and read by its type: params, targets and output told apart by `jobType`. */
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

/** The client a platform makes from the document: every call typed by its path and method. */
const api = createClient<paths>({ baseUrl: "https://ajr.example", headers: { authorization: "Bearer ajs_key" } });
const learner = { params: { path: { externalId: "learner-1" } } };

export async function startOnMaterial(): Promise<string> {
  const { data, error } = await api.POST("/api/v1/learners/{externalId}/jobs", { ...learner, body: { jobType: "quiz_generation", target: { type: "material", externalId: "m-1" }, params: { count: 3 } } });
  if (error) return error.error.code;
  return data.job.jobType === "quiz_generation" ? `${data.job.output?.questions.length ?? 0}` : data.job.status;
}
export async function readJob(jobId: string): Promise<number> {
  const { data } = await api.GET("/api/v1/jobs/{jobId}", { params: { path: { jobId } } });
  if (data?.jobType === "flashcard_generation") return data.output?.flashcards.length ?? 0;
  // @ts-expect-error a flashcard job's output has no questions (read through openapi-fetch)
  if (data?.jobType === "flashcard_generation") return data.output?.questions.length ?? 0;
  return 0;
}
export async function recordReview(): Promise<number> {
  const { data } = await api.POST("/api/v1/learners/{externalId}/activity", { ...learner, body: { reviews: [{ externalId: "r-1", cardExternalId: "c-1", front: "F", back: "B", rating: "good", reviewedAt: "2026-12-01T09:00:00Z" }] } });
  return data?.reviews.new ?? 0;
}

/** Calls the document refuses: wrong targets by kind, ratings by number, paths and methods it does not have. */
export const wrongCalls = [
  // @ts-expect-error a material target names its material (externalId)
  () => api.POST("/api/v1/learners/{externalId}/jobs", { ...learner, body: { jobType: "quiz_generation", target: { type: "material" } } }),
  // @ts-expect-error a user target is the learner themself: it carries no externalId
  () => api.POST("/api/v1/learners/{externalId}/jobs", { ...learner, body: { jobType: "weak_point_analysis", target: { type: "user", externalId: "learner-1" } } }),
  // @ts-expect-error knowledge points are extracted from a material, never from a knowledge point
  () => api.POST("/api/v1/learners/{externalId}/jobs", { ...learner, body: { jobType: "knowledge_point_extraction", target: { type: "knowledge_point", externalId: "kp-1" } } }),
  // @ts-expect-error a review's rating is its name, never a number
  () => api.POST("/api/v1/learners/{externalId}/activity", { ...learner, body: { reviews: [{ externalId: "r-1", cardExternalId: "c-1", front: "F", back: "B", rating: 9, reviewedAt: "2026-12-01T09:00:00Z" }] } }),
  // @ts-expect-error a study session's minutes are a number
  () => api.POST("/api/v1/learners/{externalId}/activity", { ...learner, body: { studySessions: [{ externalId: "s-1", startedAt: "2026-12-01T09:00:00Z", minutes: "20" }] } }),
  // @ts-expect-error reading a job needs its id in the path
  () => api.GET("/api/v1/jobs/{jobId}", { params: { path: {} } }),
  // @ts-expect-error the API has no list of jobs
  () => api.GET("/api/v1/jobs"),
  // @ts-expect-error a job is cancelled with POST /cancel, never deleted
  () => api.DELETE("/api/v1/jobs/{jobId}", { params: { path: { jobId: "j-1" } } }),
];

/** A job type started on a target type it does not run on: the 400 names both, and the types it runs on. */
export const wrongTargetType: Answer<"/api/v1/learners/{externalId}/jobs", "post", 400> = { error: { code: "INVALID_REQUEST", message: "", details: { jobType: "knowledge_point_extraction", targetType: "user", allowedTargetTypes: ["material"] } } };
// @ts-expect-error allowedTargetTypes lists target types only
export const nopeTargetType: Answer<"/api/v1/learners/{externalId}/jobs", "post", 400> = { error: { code: "INVALID_REQUEST", message: "", details: { jobType: "quiz_generation", targetType: "user", allowedTargetTypes: ["nope"] } } };

/** An exported job is typed as strictly as a job read by GET /jobs/{id}. */
type Exported = S["QuizGenerationExportedJob"];
declare const exported: Exported;
export const failedAs: Exported["errorCode"] = "MODEL_TIMEOUT";
// @ts-expect-error an exported job's errorCode is a failure code
export const boom: Exported["errorCode"] = "BOOM";
// @ts-expect-error an exported job's locale is one the API speaks
export const french: Exported["locale"] = "fr";
// @ts-expect-error an exported job carries exactly its fields
export const padded: Exported = { ...exported, internalNote: "x" };
export const questions = exported.result?.output.questions.length;
// @ts-expect-error an exported quiz job's output has no flashcards
export const cardsOfQuiz = exported.result?.output.flashcards;
export const cacheHits: number = exported.usage[0]!.cacheHitTokens + exported.usage[0]!.cacheMissTokens;
// @ts-expect-error a usage row's cache figures are cacheHitTokens and cacheMissTokens
export const cacheHitsMisnamed: number = exported.usage[0]!.cacheHits;
type Log = S["ExportLearnerAnswer"]["reviewCards"][number]["logs"][number];
export const rated: Log["rating"] = "again";
// @ts-expect-error an exported rating is its name, not the stored grade
export const ratedByNumber: Log["rating"] = 3;

/** The erase answer: closed counts, and the ids of the jobs it cancelled in flight. */
export function erasedJobs(answer: S["EraseLearnerAnswer"]): string[] {
  const removed = answer.counts.jobs + answer.counts.cancelledInFlight;
  // @ts-expect-error the counts name their kinds; no other
  const other: number = answer.counts.everything;
  // @ts-expect-error the cancelled jobs are named by their ids (strings)
  const numbered: number[] = answer.cancelledJobIds;
  return [...answer.cancelledJobIds, String(removed + other + numbered.length)];
}

/** The webhook: a finished job's status and code are enums too. */
export const hookStatus: Hook["job"]["status"] = "cancelled";
// @ts-expect-error the webhook announces finished jobs only
export const hookRunning: Hook["job"]["status"] = "running";
// @ts-expect-error the webhook's errorCode is a failure code
export const hookCode: Hook["job"]["errorCode"] = "BOOM";
// @ts-expect-error the webhook's body carries exactly its fields
export const hookPadded: Hook = { type: "ai.job.finished", job: { ...({} as Hook["job"]), extra: true } };

/** A job's error codes, result versions and degraded flag (docs/contract.md#versions-and-the-compatibility-promise). */
type QuizJob = S["QuizGenerationJob"];
export const revoked: QuizJob["error"] = { code: "LEASE_REVOKED", message: "the Runtime key holding the lease was revoked" };
// @ts-expect-error a code the app never writes on a job
export const expired: QuizJob["error"] = { code: "LEASE_EXPIRED", message: "" };
export const degradedJob: QuizJob["degraded"] = true;
// @ts-expect-error degraded is a boolean (null before the job succeeded)
export const degradedWord: QuizJob["degraded"] = "yes";
export const storedV1: QuizJob["outputSchemaVersion"] = "v1";
// @ts-expect-error a version no document describes
export const storedV3: QuizJob["outputSchemaVersion"] = "v3";
type Analysis = S["LearningStateAnalysisJob"]["output"];
export const analysisV1: Analysis = { summary: "s", overallMastery: 0.5, engagementLevel: "low", strengths: ["Light"], risks: [], knowledgePoints: [] };
// @ts-expect-error a strength is a sentence (v1) or names its point (v2), never a number
export const analysisNeither: Analysis = { summary: "s", overallMastery: 0.5, engagementLevel: "low", strengths: [3], risks: [], knowledgePoints: [] };
type NotCancellable = Answer<"/api/v1/jobs/{jobId}/cancel", "post", 409>;
export const raced: NotCancellable = { error: { code: "JOB_NOT_CANCELLABLE", message: "job kept changing; try again" } };
// @ts-expect-error JOB_NOT_CANCELLABLE's details are the job's status
export const cancelWhy: NotCancellable = { error: { code: "JOB_NOT_CANCELLABLE", message: "", details: { reason: "done" } } };
export const hookRevoked: Hook["job"]["errorCode"] = "LEASE_REVOKED";
// @ts-expect-error the webhook's result version is the documents'
export const hookVersion: NonNullable<Hook["job"]["result"]>["outputSchemaVersion"] = "2";
