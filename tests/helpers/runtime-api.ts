import { JOB_TYPES } from "@/server/job-types";
import { dispatch, type EndpointName } from "@/server/runtime-api/dispatch";
import { PROTOCOL_HEADER, RUNTIME_PROTOCOL_VERSION } from "@/server/runtime-api/protocol";

export type Endpoint = EndpointName;

export type CallOptions = { key?: string | null; rawBody?: string; headers?: Record<string, string> };

/**
 * Calls the Runtime API in process, through the same dispatch() the HTTP route uses; jobId null for
 * /poll and /results. It speaks the current protocol unless `headers` says otherwise (an empty
 * Runtime-Protocol: a Runtime that names none).
 */
export async function call(endpoint: Endpoint, jobId: string | null, body: unknown, opts: CallOptions = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
  const res = await dispatch({
    method: "POST",
    path: jobId === null ? [endpoint] : [jobId, endpoint],
    authorization: opts.key ? `Bearer ${opts.key}` : (headers.authorization ?? null),
    contentType: headers["content-type"] ?? null,
    protocol: headers[PROTOCOL_HEADER] ?? RUNTIME_PROTOCOL_VERSION,
    body: opts.rawBody ?? JSON.stringify(body),
  });
  // Through JSON and back, as a client over HTTP would see it (dates become strings).
  return { status: res.status, body: JSON.parse(JSON.stringify(res.body)), headers: res.headers ?? {} };
}

/** A Runtime as a test sees it: a key and an instance id, with one method per endpoint. */
export function runtime(key: string, runtimeInstanceId: string) {
  return {
    id: runtimeInstanceId,
    poll: (body: Record<string, unknown> = {}) =>
      call("poll", null, { runtimeInstanceId, capabilities: ALL_TYPES, ...body }, { key }),
    lock: (jobId: string) => call("lock", jobId, { runtimeInstanceId }, { key }),
    heartbeat: (jobId: string, attemptNo: number, extra: Record<string, unknown> = {}) =>
      call("heartbeat", jobId, { runtimeInstanceId, attemptNo, ...extra }, { key }),
    result: (jobId: string, attemptNo: number, output: unknown, extra: Record<string, unknown> = {}) =>
      call("result", jobId, { runtimeInstanceId, attemptNo, output, ...extra }, { key }),
    /** Several results in one request: [{jobId, attemptNo, output, ...}]. */
    results: (results: Record<string, unknown>[]) => call("results", null, { runtimeInstanceId, results }, { key }),
    fail: (jobId: string, attemptNo: number, errorCode: string, errorMessage = "test failure") =>
      call("fail", jobId, { runtimeInstanceId, attemptNo, errorCode, errorMessage }, { key }),
  };
}

/** Every job type, from the registry (a Runtime advertising all of them). */
export const ALL_TYPES: string[] = [...JOB_TYPES];
