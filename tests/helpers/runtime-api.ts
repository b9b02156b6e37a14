import { POST as poll } from "@/app/internal/runtime/jobs/poll/route";
import { POST as lock } from "@/app/internal/runtime/jobs/[jobId]/lock/route";
import { POST as heartbeat } from "@/app/internal/runtime/jobs/[jobId]/heartbeat/route";
import { POST as result } from "@/app/internal/runtime/jobs/[jobId]/result/route";
import { POST as fail } from "@/app/internal/runtime/jobs/[jobId]/fail/route";

const handlers = { poll, lock, heartbeat, result, fail };
export type Endpoint = keyof typeof handlers;

export type CallOptions = { key?: string | null; rawBody?: string; headers?: Record<string, string> };

/** Calls a Runtime route handler with a real Request, as Next would. */
export async function call(endpoint: Endpoint, jobId: string | null, body: unknown, opts: CallOptions = {}) {
  const url = jobId === null ? `http://test/internal/runtime/jobs/poll` : `http://test/internal/runtime/jobs/${jobId}/${endpoint}`;
  const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const req = new Request(url, { method: "POST", headers, body: opts.rawBody ?? JSON.stringify(body) });
  const res = await handlers[endpoint](req, { params: Promise.resolve(jobId === null ? {} : { jobId }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
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
    fail: (jobId: string, attemptNo: number, errorCode: string, errorMessage = "test failure") =>
      call("fail", jobId, { runtimeInstanceId, attemptNo, errorCode, errorMessage }, { key }),
  };
}

export const ALL_TYPES = [
  "learning_state_analysis",
  "weak_point_analysis",
  "next_action_planning",
  "quiz_generation",
  "flashcard_generation",
];
