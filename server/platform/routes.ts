import type { z } from "zod";
import type { Actor } from "../jobs/state-machine";
import type { Lane } from "../bulkheads";
import { eraseLearner } from "../learners/erase";
import { exportLearnerStream } from "../learners/export";
import { recordActivity } from "./activity";
import { cancelPlatformJob, readJob, startJob } from "./jobs";
import { findLearner, upsertLearner } from "./learners";
import { upsertMaterial } from "./materials";
import {
  activityAnswer,
  activityBody,
  erasedAnswer,
  exportAnswer,
  jobAnswer,
  jobBody,
  learnerAnswer,
  learnerBody,
  materialAnswer,
  materialBody,
  startJobAnswer,
} from "./schemas";
import type { Scope } from "./service-keys";

/** What a route's domain call gets: the parsed body, the path's ids, and who is acting. */
export type RouteCall<B> = { body: B; params: Record<string, string>; actor: Actor };
export type RouteAnswer = { status: number; body: unknown };

export type Route = {
  method: "GET" | "PUT" | "POST" | "DELETE";
  /** Below /api/v1, with {name} for a path id (learner and material ids are external ids, jobId ours). */
  path: string;
  operationId: string;
  summary: string;
  scope: Scope;
  body?: z.ZodType;
  answer: z.ZodType;
  /** Error codes beyond the ones every route has (server/platform/openapi.ts), by status. */
  errors: Record<number, readonly string[]>;
  /** Heavy work capped per key and per process (server/bulkheads.ts): the slot is taken before the body is read. */
  lane?: Lane;
  run: (call: RouteCall<never>) => Promise<RouteAnswer>;
};

const route = <B extends z.ZodType | undefined>(
  r: Omit<Route, "run" | "body"> & {
    body?: B;
    run: (call: RouteCall<B extends z.ZodType ? z.infer<B> : undefined>) => Promise<RouteAnswer>;
  },
) => r as unknown as Route;

const ok = (body: unknown) => ({ status: 200, body });
const createdOr = (created: boolean, body: unknown) => ({ status: created ? 201 : 200, body });
const learnerNotFound = { 404: ["NOT_FOUND"] } as const;

/** The platform API (docs/contract.md#learners-and-their-data), one entry per route: what the dispatcher and the OpenAPI document both read. */
export const ROUTES: Route[] = [
  route({
    method: "PUT",
    path: "/learners/{externalId}",
    operationId: "upsertLearner",
    summary:
      "Creates (201) or updates (200) the learner with this external id. A learner made here exists before they ever sign in (no password); an email that names a learner account without an external id links it. `aiConsent` records the learner's consent to AI analysis as the platform obtained it; turning it off cancels their jobs in flight.",
    scope: "learners:write",
    body: learnerBody,
    answer: learnerAnswer,
    errors: { 409: ["EMAIL_IN_USE"] },
    run: async ({ body, params, actor }) => {
      const learner = await upsertLearner(params.externalId!, body, actor);
      return createdOr(learner.created, learner);
    },
  }),
  route({
    method: "PUT",
    path: "/learners/{externalId}/materials/{materialId}",
    operationId: "upsertMaterial",
    summary:
      "Creates (201) or updates (200) a material of the learner with its knowledge points. `knowledgePoints` is the full set: the material's knowledge points not named are removed (with their quiz attempts); one named that belongs to another material of this learner moves here. Analyses see the change at once.",
    scope: "learners:write",
    body: materialBody,
    answer: materialAnswer,
    errors: learnerNotFound,
    run: async ({ body, params }) => {
      const learner = await findLearner(params.externalId!);
      const material = await upsertMaterial(learner.id, params.materialId!, body);
      return createdOr(material.created, material);
    },
  }),
  route({
    method: "POST",
    path: "/learners/{externalId}/activity",
    operationId: "recordActivity",
    summary:
      "Stores quiz attempts and study sessions, at most 1,000 items a call. Each has the platform's id: a repeat (sent before, or twice in the call) is counted, not stored twice, so a retried call is safe; the answer says how many were new. A batch naming a knowledge point or material the learner does not have is refused whole (422 UNKNOWN_REFERENCE).",
    scope: "activity:write",
    lane: "ingest",
    body: activityBody,
    answer: activityAnswer,
    errors: { ...learnerNotFound, 409: ["CARD_LOG_FULL"], 422: ["UNKNOWN_REFERENCE"] },
    run: async ({ body, params }) => {
      const learner = await findLearner(params.externalId!);
      return ok(await recordActivity(learner.id, body));
    },
  }),
  route({
    method: "POST",
    path: "/learners/{externalId}/jobs",
    operationId: "startJob",
    summary:
      "Starts an analysis of the learner (201), under the learner page's rules: the learner's consent (403 CONSENT_REQUIRED), their quotas and token budget (429 QUOTA_EXCEEDED), and de-duplication: an identical analysis already in flight, or an earlier call with the same idempotencyKey, answers that job (200, created: false). Finished jobs are announced by the webhook.",
    scope: "jobs:write",
    body: jobBody,
    answer: startJobAnswer,
    errors: {
      400: ["INVALID_PARAMS", "CREDENTIAL_REQUIRED"],
      403: ["CONSENT_REQUIRED"],
      404: ["NOT_FOUND", "TARGET_NOT_FOUND"],
      429: ["QUOTA_EXCEEDED"],
    },
    run: async ({ body, params, actor }) => {
      const learner = await findLearner(params.externalId!);
      const started = await startJob(learner, body, actor);
      return createdOr(started.created, started);
    },
  }),
  route({
    method: "GET",
    path: "/jobs/{jobId}",
    operationId: "getJob",
    summary:
      "A job's status and progress, and its output once it succeeded or its error once it failed. Any job of a learner with an external id (the platform's learners) can be read; others are 404.",
    scope: "jobs:read",
    answer: jobAnswer,
    errors: { 404: ["JOB_NOT_FOUND"] },
    run: async ({ params }) => ok(await readJob(params.jobId!)),
  }),
  route({
    method: "POST",
    path: "/jobs/{jobId}/cancel",
    operationId: "cancelJob",
    summary:
      "Cancels a job, by the learner page's rules: a pending job ends cancelled at once (error CANCELLED); a locked or running one gets `cancelRequested: true`, its Runtime stops at its next heartbeat and the job then ends cancelled (the webhook announces it). Idempotent: a job already cancelled, or already asked to stop, answers 200 as it is. A job that has succeeded or failed is 409 JOB_NOT_CANCELLABLE with its status; a job that changed under every try to cancel it (a race with its Runtime) is 409 JOB_NOT_CANCELLABLE without details: send the cancel again. Any job a service key can read can be cancelled; others are 404. No body.",
    scope: "jobs:write",
    answer: jobAnswer,
    errors: { 404: ["JOB_NOT_FOUND"], 409: ["JOB_NOT_CANCELLABLE"] },
    run: async ({ params, actor }) => ok(await cancelPlatformJob(params.jobId!, actor)),
  }),
  route({
    method: "GET",
    path: "/learners/{externalId}/export",
    operationId: "exportLearner",
    summary:
      "Everything stored about the learner, as JSON (docs/contract.md#learners-and-their-data, data rights; the list is in docs/data-rights.md): account, consent, materials, knowledge points, activity, snapshots, jobs with their outputs, usage and quotas. Audited (learner.export).",
    scope: "data:export",
    answer: exportAnswer,
    errors: learnerNotFound,
    run: async ({ params, actor }) => {
      const learner = await findLearner(params.externalId!);
      return ok((await exportLearnerStream(learner.id, serviceActor(actor))).stream);
    },
  }),
  route({
    method: "DELETE",
    path: "/learners/{externalId}",
    operationId: "eraseLearner",
    summary:
      "Erases the learner (docs/contract.md#learners-and-their-data, data rights): their jobs in flight are cancelled, then their account, sessions, credentials, consent, materials, knowledge points, activity, snapshots, jobs with inputs and outputs, usage, quota counters and overrides are removed. Only anonymous aggregates and an audit row that names no one stay. A second call is a 404.",
    scope: "data:erase",
    answer: erasedAnswer,
    errors: { ...learnerNotFound, 403: ["FORBIDDEN"] },
    run: async ({ params, actor }) => {
      const learner = await findLearner(params.externalId!);
      const { erasureId, counts, cancelledJobIds } = await eraseLearner(learner.id, serviceActor(actor));
      return ok({ externalId: learner.externalId, erased: true, erasureId, counts, cancelledJobIds });
    },
  }),
];

/** Data rights are exercised by the platform through its key: the audit row names the key, not a person. */
function serviceActor(actor: Actor) {
  return { type: "service" as const, id: actor.id ?? "unknown" };
}
