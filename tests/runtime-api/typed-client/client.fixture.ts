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

/** An item of POST /results takes the output of POST /{jobId}/result. */
type ResultsBody = Body<"/internal/runtime/jobs/results">;
export const batch: ResultsBody = { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", attemptNo: 1, output: cards.output }, { jobId: "j2", attemptNo: 1, output: weakPoints.output }] };
export const wrongBatches: ResultsBody[] = [
  // @ts-expect-error a quiz whose questions are not a list, in a batch
  { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", attemptNo: 1, output: { questions: "none" } }] },
  // @ts-expect-error a flashcard without its back, in a batch
  { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", attemptNo: 1, output: { flashcards: [{ front: "Q", knowledgePointId: "kp", tags: [] }] } }] },
  // @ts-expect-error a field no job type's output names, in a batch
  { runtimeInstanceId: "rt-1", results: [{ jobId: "j1", attemptNo: 1, output: { weakPoints: [], verdict: "fine" } }] },
];

/** A 422's details are the broken rules; its code is only INVALID_SCHEMA. */
export function brokenRules(answer: Answer<"/internal/runtime/jobs/{jobId}/result", 422>): string[] {
  return (answer.error.details ?? []).map((v) => `${v.path}: ${v.rule} (${v.message})`);
}
// @ts-expect-error a 422 never carries another code
export const notA422: Answer<"/internal/runtime/jobs/{jobId}/result", 422> = { error: { code: "LOCK_LOST", message: "" } };
