/**
 * Compiled by tests/runtime-api/openapi-client.test.ts beside `./runtime-api.d.ts`, which
 * openapi-typescript generates from the OpenAPI document. Every `@ts-expect-error` line is
 * something the typed client must refuse: if the document let it through, the directive would be
 * unused and the compile would fail. (Excluded from the project's own typecheck: the generated
 * file exists only in the test's folder.)
 */
import type { components, paths } from "./runtime-api";

type S = components["schemas"];
type Body<P extends keyof paths> = paths[P]["post"]["requestBody"]["content"]["application/json"];
type Answer<P extends keyof paths, Status extends number> =
  paths[P]["post"]["responses"] extends Record<Status, { content: { "application/json": infer A } }> ? A : never;
type ResultBody = Body<"/internal/runtime/jobs/{jobId}/result">;
type FailBody = Body<"/internal/runtime/jobs/{jobId}/fail">;

export const weakPoints: ResultBody = {
  runtimeInstanceId: "rt-1",
  attemptNo: 1,
  output: {
    weakPoints: [
      { knowledgePointId: "kp", title: "T", severity: "high", evidence: ["e"], suggestedReview: "Read it again" },
    ],
  },
};
export const cards: ResultBody = {
  runtimeInstanceId: "rt-1",
  attemptNo: 2,
  output: { flashcards: [{ front: "Q", back: "A", knowledgePointId: "kp", tags: [] }] },
};

export const wrongOutputs: ResultBody[] = [
  // @ts-expect-error a quiz whose questions are not a list
  { runtimeInstanceId: "rt-1", attemptNo: 1, output: { questions: "none" } },
  // @ts-expect-error a field no job type's output names
  { runtimeInstanceId: "rt-1", attemptNo: 1, output: { weakPoints: [], verdict: "fine" } },
  // @ts-expect-error a weak point without its evidence
  { runtimeInstanceId: "rt-1", attemptNo: 1, output: { weakPoints: [{ knowledgePointId: "kp", title: "T", severity: "high", suggestedReview: "x" }] } },
  // @ts-expect-error a severity the schema does not have
  { runtimeInstanceId: "rt-1", attemptNo: 1, output: { weakPoints: [{ knowledgePointId: "kp", title: "T", severity: "dire", evidence: ["e"], suggestedReview: "x" }] } },
];

export const handBack: FailBody = { runtimeInstanceId: "rt-1", attemptNo: 1, errorCode: "RUNTIME_SHUTDOWN" };
// @ts-expect-error an error code the API does not know
export const unknownCode: FailBody = { runtimeInstanceId: "rt-1", attemptNo: 1, errorCode: "MODEL_TIMEOUTS" };

/** A poll item is told apart by `kind`; a claimed quiz job's params are the quiz's. */
export function questionsWanted(item: S["PollItem"]): number | null {
  if (item.kind === "unclaimed") {
    // @ts-expect-error an unclaimed item carries no leased job
    return item.job;
  }
  const job = item.job;
  if (job.jobType === "quiz_generation") return job.params.count;
  // @ts-expect-error a flashcard job's params have no difficulty
  if (job.jobType === "flashcard_generation") return job.params.difficulty;
  return null;
}

/** Each type's leased job says the targets it runs on and carries its own params. */
export function runsOn(job: S["LeasedJob"]): string {
  if (job.jobType === "knowledge_point_extraction") {
    // @ts-expect-error knowledge points are extracted from a material only
    if (job.targetType === "user") return "never";
    // @ts-expect-error a knowledge-point job's params have no count
    return `${job.params.maxPoints} ${job.params.count}`;
  }
  // @ts-expect-error no job type runs on a course
  if (job.targetType === "course") return "never";
  return job.targetType;
}

/** An item of POST /results names its job's type, and its output is that type's. */
type ResultsBody = Body<"/internal/runtime/jobs/results">;
type Output<T extends string> = Extract<ResultsBody["results"][number], { jobType: T }>["output"];
declare const deck: Output<"flashcard_generation">;
declare const weak: Output<"weak_point_analysis">;
export const batch: ResultsBody = { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", jobType: "flashcard_generation", attemptNo: 1, output: deck }, { jobId: "j2", jobType: "weak_point_analysis", attemptNo: 1, output: weak }] };
export const wrongBatches: ResultsBody[] = [
  // @ts-expect-error a quiz whose questions are not a list, in a batch
  { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", jobType: "quiz_generation", attemptNo: 1, output: { questions: "none" } }] },
  // @ts-expect-error a flashcard without its back, in a batch
  { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", jobType: "flashcard_generation", attemptNo: 1, output: { flashcards: [{ front: "Q", knowledgePointId: "kp", tags: [] }] } }] },
  // @ts-expect-error a field the weak points' output does not name, in a batch
  { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", jobType: "weak_point_analysis", attemptNo: 1, output: { weakPoints: [], verdict: "fine" } }] },
  // @ts-expect-error a flashcard job's item carrying weak points: the output is its jobType's
  { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", jobType: "flashcard_generation", attemptNo: 1, output: weak }] },
  // @ts-expect-error an item without jobType naming a version no document describes
  { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", attemptNo: 1, output: weak, outputSchemaVersion: "v3" }] },
  // @ts-expect-error an item without jobType whose output is no type's
  { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", attemptNo: 1, output: { verdict: "fine" } }] },
];
/** Protocol 1: an item without jobType (the job knows its type), its output of any type, in v1 or v2. */
export const untypedBatch: ResultsBody = { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", attemptNo: 1, output: weak, outputSchemaVersion: "v1" }] };

/** A 422's details are the broken rules; its code is only INVALID_SCHEMA. */
export function brokenRules(answer: Answer<"/internal/runtime/jobs/{jobId}/result", 422>): string[] {
  return (answer.error.details ?? []).map((v) => `${v.path}: ${v.rule} (${v.message})`);
}
// @ts-expect-error a 422 never carries another code
export const notA422: Answer<"/internal/runtime/jobs/{jobId}/result", 422> = { error: { code: "LOCK_LOST", message: "" } };

/** Each error's `details` has its code's shape; a code that carries none has none. */
type LockConflict = Answer<"/internal/runtime/jobs/{jobId}/lock", 409>;
export function skipForScope(answer: LockConflict): boolean {
  return answer.error.code === "JOB_NOT_LOCKABLE" && answer.error.details.reason === "key_scope";
}
export function alreadyLockedDetails(answer: LockConflict): unknown {
  // @ts-expect-error JOB_ALREADY_LOCKED carries no details to read
  if (answer.error.code === "JOB_ALREADY_LOCKED") return answer.error.details.status;
  return null;
}
export const unknownCodeAnswer: Answer<"/internal/runtime/jobs/{jobId}/fail", 400> = { error: { code: "UNKNOWN_ERROR_CODE", message: "", details: { allowed: ["MODEL_TIMEOUT"] } } };
// @ts-expect-error the allowed codes are failure codes
export const wrongAllowed: Answer<"/internal/runtime/jobs/{jobId}/fail", 400> = { error: { code: "UNKNOWN_ERROR_CODE", message: "", details: { allowed: ["MODEL_TIMEOUTS"] } } };
// @ts-expect-error a reason the document does not have
export const otherReason: LockConflict = { error: { code: "JOB_NOT_LOCKABLE", message: "", details: { status: "pending", reason: "busy" } } };
// @ts-expect-error LOCK_LOST's details are the job's status and attempt, not a result
export const lostWithResult: Answer<"/internal/runtime/jobs/{jobId}/heartbeat", 409> = { error: { code: "LOCK_LOST", message: "", details: { resultId: "r" } } };
// @ts-expect-error UNAVAILABLE always says when to retry
export const busy: Answer<"/internal/runtime/jobs/poll", 503> = { error: { code: "UNAVAILABLE", message: "" } };
// @ts-expect-error a 413 names its limit
export const tooBig: Answer<"/internal/runtime/jobs/{jobId}/result", 413> = { error: { code: "PAYLOAD_TOO_LARGE", message: "", details: {} } };
// @ts-expect-error a poll's 400 is never about a job
export const pollNotFound: Answer<"/internal/runtime/jobs/poll", 400> = { error: { code: "JOB_NOT_FOUND", message: "" } };
// @ts-expect-error an item of POST /results carries what POST /{jobId}/result answers, never a lock's code
export const batchItem: Answer<"/internal/runtime/jobs/results", 200>["results"][number]["body"] = { error: { code: "JOB_ALREADY_LOCKED", message: "" } };
// @ts-expect-error JOB_CANCELLED carries no details
export const cancelledDetails: Answer<"/internal/runtime/jobs/{jobId}/result", 409> = { error: { code: "JOB_CANCELLED", message: "", details: { status: "cancelled" } } };

/** Versions, degraded results, caps and protocols (docs/contract.md#versions-and-the-compatibility-promise). */
type Stored = Answer<"/internal/runtime/jobs/{jobId}/result", 200>;
export const storedDegraded: Stored = { status: "succeeded", resultId: "r", idempotent: false, degraded: true };
// @ts-expect-error a result's answer always says whether it was stored degraded
export const storedUnsaid: Stored = { status: "succeeded", resultId: "r", idempotent: false };
export const inV1: ResultBody = {
  runtimeInstanceId: "rt-1",
  attemptNo: 1,
  outputSchemaVersion: "v1",
  output: { summary: "s", overallMastery: 0.5, engagementLevel: "low", strengths: ["Light"], risks: [], knowledgePoints: [] },
};
// @ts-expect-error a version no document describes
export const inV3: ResultBody = { ...weakPoints, outputSchemaVersion: "v3" };
// @ts-expect-error a v2 learning-state strength names its point; a bare number is neither version's
export const neitherVersion: ResultBody = { runtimeInstanceId: "rt-1", attemptNo: 1, output: { summary: "s", overallMastery: 0.5, engagementLevel: "low", strongestKnowledgePointId: null, strengths: [1], risks: [], knowledgePoints: [] } };
type Leased = S["QuizGenerationLeasedJob"];
export const leasedV1: Leased["outputSchemaVersion"] = "v1";
// @ts-expect-error a lease names a version the documents describe
export const leasedV9: Leased["outputSchemaVersion"] = "v9";
export const slowDown: Answer<"/internal/runtime/jobs/poll", 429> = { error: { code: "RATE_LIMITED", message: "", details: { retryAfterSeconds: 1 } } };
// @ts-expect-error a 429 always says when to retry
export const slowDownWhen: Answer<"/internal/runtime/jobs/poll", 429> = { error: { code: "RATE_LIMITED", message: "" } };
export const oldProtocol: Answer<"/internal/runtime/jobs/poll", 400> = { error: { code: "UNSUPPORTED_PROTOCOL_VERSION", message: "", details: { supported: ["1", "2"] } } };
// @ts-expect-error the supported majors are the document's
export const otherProtocol: Answer<"/internal/runtime/jobs/poll", 400> = { error: { code: "UNSUPPORTED_PROTOCOL_VERSION", message: "", details: { supported: ["7"] } } };
// @ts-expect-error a mistyped item's 422 is INVALID_SCHEMA, never a 404 naming the type
export const mistypedAs404: Answer<"/internal/runtime/jobs/{jobId}/result", 404> = { error: { code: "INVALID_SCHEMA", message: "", details: [] } };
