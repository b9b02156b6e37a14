/**
 * Compiled by tests/platform/openapi-client.test.ts beside `./platform-api.d.ts`, which
 * openapi-typescript generates from the platform API's OpenAPI document. Every `@ts-expect-error`
 * line is something the typed client must refuse: if the document let it through, the directive
 * would be unused and the compile would fail. (Excluded from the project's own typecheck: the
 * generated file exists only in the test's folder.)
 */
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
