import type { z } from "zod";
import { jobConfig } from "../config";
import { heartbeat, lockJob } from "../jobs/lease";
import { failJob, submitResult } from "../jobs/results";
import { submitResults } from "../jobs/results-batch";
import {
  failRequest,
  failResponse,
  heartbeatRequest,
  heartbeatResponse,
  lockRequest,
  lockResponse,
  pollRequest,
  pollResponse,
  resultRequest,
  resultResponse,
  resultsRequest,
  resultsResponse,
} from "./contract";
import { pollOrWait } from "./long-poll";
import type { KeyScope } from "../jobs/key-scope";
import { PROTOCOL_MAJORS, type ProtocolMajor } from "./protocol";

/**
 * Who is calling: the id of the Runtime key the request was authenticated with (leases are bound
 * to it), and the request's abort signal (a long poll whose client has gone stops waiting).
 */
export type Caller = { keyId: string; scope: KeyScope; signal?: AbortSignal; protocol?: ProtocolMajor };

/**
 * The output schema version a caller's protocol major knows (server/runtime-api/protocol.ts): a
 * Runtime of protocol 1 is leased its jobs as v1 and its results without a version are read as v1.
 */
const versionFor = (caller: Caller) => PROTOCOL_MAJORS[caller.protocol ?? 2].outputSchemaVersion;
/** A lease as the caller's protocol states it. */
const leasedFor = <T extends { job: { outputSchemaVersion: string } }>(answer: T, caller: Caller): T =>
  caller.protocol === 1 ? { ...answer, job: { ...answer.job, outputSchemaVersion: versionFor(caller) } } : answer;
const withVersion = <T extends { outputSchemaVersion?: string }>(item: T, caller: Caller): T =>
  caller.protocol === 1 ? { ...item, outputSchemaVersion: item.outputSchemaVersion ?? versionFor(caller) } : item;

/** One Runtime endpoint: where it is, what it takes and answers, the domain call, and its documentation. */
export type Endpoint<S extends z.ZodType = z.ZodType> = {
  path: string;
  operationId: string;
  summary: string;
  request: S;
  response: z.ZodType;
  /** The error codes it answers with beyond the common ones, per status. */
  errors: Record<number, readonly string[]>;
  run: (body: z.infer<S>, jobId: string, caller: Caller) => Promise<unknown>;
};
const endpoint = <S extends z.ZodType>(e: Endpoint<S>) => e as unknown as Endpoint;

const jobErrors = { 404: ["JOB_NOT_FOUND"] } as const;

/**
 * The Runtime protocol (docs/contract.md#the-runtime-protocol), one entry per endpoint: dispatch() routes and runs from it, and
 * the OpenAPI document (openapi.ts) is written from it, so the two cannot list different endpoints.
 */
export const ENDPOINTS = {
  poll: endpoint({
    path: "/internal/runtime/jobs/poll",
    operationId: "pollJobs",
    summary:
      "Pending, visible jobs of the given types in queue order (priority, then fairly across learners, then age). Each item says what it is in `kind`: with claim: true they come back already locked to the caller (`claimed`: the job with its snapshot and `lockUntil`, as lock answers); without, as `unclaimed` summaries to lock one by one. With waitMs and nothing to return, the answer waits until a job arrives or waitMs passes; a client that goes away while it waits ends the wait and is given nothing.",
    request: pollRequest,
    response: pollResponse,
    errors: {},
    run: async (body, _jobId, caller) => ({
      jobs: (await pollOrWait(body, caller)).map((item) =>
        "job" in item
          ? { kind: "claimed" as const, ...leasedFor(item, caller) }
          : { kind: "unclaimed" as const, ...item },
      ),
      pollIntervalMs: jobConfig.pollIntervalMs,
    }),
  }),
  lock: endpoint({
    path: "/internal/runtime/jobs/{jobId}/lock",
    operationId: "lockJob",
    summary:
      "Takes one pending job's lease (attemptNo + 1, lockUntil = now + lease, never past lockedAt + timeoutSeconds). Returns the job with its snapshot, params and model settings.",
    request: lockRequest,
    response: lockResponse,
    errors: { ...jobErrors, 409: ["JOB_ALREADY_LOCKED", "JOB_NOT_LOCKABLE"] },
    run: async (body, jobId, caller) =>
      leasedFor(await lockJob(jobId, body.runtimeInstanceId, caller.keyId, caller.scope), caller),
  }),
  heartbeat: endpoint({
    path: "/internal/runtime/jobs/{jobId}/heartbeat",
    operationId: "heartbeatJob",
    summary:
      "Extends the lease (to now + lease, but never past lockedAt + timeoutSeconds: the execution timeout caps every lease) and reports stage and progress; the first one moves locked → running. Answers cancelRequested.",
    request: heartbeatRequest,
    response: heartbeatResponse,
    errors: { ...jobErrors, 409: ["LOCK_LOST"] },
    run: (body, jobId, caller) => heartbeat(jobId, { ...body, keyId: caller.keyId }),
  }),
  result: endpoint({
    path: "/internal/runtime/jobs/{jobId}/result",
    operationId: "submitResult",
    summary:
      "Stores the output and ends the job succeeded. The output is checked against its schema version (the job type's output schema, below) and the type's quality rules (`x-quality-rules` of each output schema); a failing output fails the job (422, `details` lists every broken rule as {path, rule, message}). The same output again answers idempotent. The whole request body may be at most `x-runtime-limits.maxBodyBytes` bytes (413 above it); field lengths are in the request schema. A Runtime checks both before submitting, and ends an attempt whose result is refused (413, 400) with fail INVALID_SCHEMA and the API's reason, so the job never waits out its lease. `usage` is the attempt's model usage (every call summed), stored per attempt.",
    request: resultRequest,
    response: resultResponse,
    errors: { ...jobErrors, 409: ["LOCK_LOST", "RESULT_ALREADY_EXISTS", "JOB_CANCELLED"], 422: ["INVALID_SCHEMA"] },
    run: (body, jobId, caller) => submitResult(jobId, { ...withVersion(body, caller), keyId: caller.keyId }),
  }),
  results: endpoint({
    path: "/internal/runtime/jobs/results",
    operationId: "submitResults",
    summary:
      "Several results in one request (1 to 50, each for a different job, the whole body within `x-runtime-limits.maxBodyBytes`): each item takes the fields of POST /{jobId}/result plus its `jobId`, and gets back, in the request's order, the `httpStatus` and `body` that its own POST /{jobId}/result would have answered (200 with the result's id, or that endpoint's error). Each result is fenced on its own lease and is idempotent on its own; one refused result does not affect the others. The valid results of jobs still held commit together, in one transaction. A Runtime whose jobs end while a result request is in flight sends them together in the next one.",
    request: resultsRequest,
    response: resultsResponse,
    errors: {},
    run: (body, _jobId, caller) =>
      submitResults(
        { runtimeInstanceId: body.runtimeInstanceId, keyId: caller.keyId },
        body.results.map((item) => withVersion(item, caller)),
      ).then((results) => ({ results })),
  }),
  fail: endpoint({
    path: "/internal/runtime/jobs/{jobId}/fail",
    operationId: "failJob",
    summary:
      "Reports a classified failure. Retryable codes (MODEL_TIMEOUT, MODEL_RATE_LIMIT, NETWORK_ERROR, TEMPORARY_PROVIDER_ERROR, JOB_TIMEOUT, RUNTIME_SHUTDOWN) return the job to pending with backoff while retries remain, and each spends one retry (RUNTIME_SHUTDOWN too: a job handed back at every shutdown ends failed once its retries are spent); INVALID_SNAPSHOT, INVALID_SCHEMA, INVALID_CREDENTIAL fail it; CANCELLED acknowledges a cancel request. `usage` is the attempt's model usage, stored per attempt so that a failed attempt's tokens are counted too. `retryAfterMs` is the provider's Retry-After (429, 503): runAfter is then at least that far away, never beyond the backoff cap (JOB_BACKOFF_CAP_MS). A Runtime that gives up after its own quality loop sends the last output it rejected as `rejectedOutput` with `violations` [{path, rule, message}] (the shape of a 422's details): the API keeps them at this attempt, like an output it refuses itself, cut at `x-runtime-limits.rejectedOutputBytes` and marked truncated. A Runtime may cut a larger output itself: `rejectedOutput` is then the start of its JSON text with `rejectedOutputTruncated: true` and `rejectedOutputBytes` its whole size. Nothing is kept when the job ends cancelled.",
    request: failRequest,
    response: failResponse,
    errors: {
      ...jobErrors,
      400: ["INVALID_REQUEST", "MALFORMED_JSON", "UNKNOWN_ERROR_CODE", "CANCEL_NOT_REQUESTED"],
      409: ["LOCK_LOST", "JOB_CANCELLED"],
    },
    run: (body, jobId, caller) => failJob(jobId, { ...body, keyId: caller.keyId }),
  }),
};
export type EndpointName = keyof typeof ENDPOINTS;
