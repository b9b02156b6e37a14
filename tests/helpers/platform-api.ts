import { GET, PUT, POST, DELETE } from "@/app/api/v1/[...path]/route";
import { createServiceKey, SCOPES, type Scope } from "@/server/platform/service-keys";
import { uid } from "./factories";

const HANDLERS = { GET, PUT, POST, DELETE } as const;
type Method = keyof typeof HANDLERS;

/** A service key with the given scopes (all of them by default). */
export async function serviceKey(scopes: readonly Scope[] = SCOPES) {
  return (await createServiceKey(uid("svc"), scopes, "test")).key;
}

export type CallOptions = { key?: string | null; raw?: string; headers?: Record<string, string> };

/**
 * Calls the platform API's App Router route handler with a real Request, as Next would: the
 * path below /api/v1 as its segments, the body as text.
 */
export async function callApi(method: Method, path: string, body?: unknown, opts: CallOptions = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const text = opts.raw ?? (body === undefined ? undefined : JSON.stringify(body));
  const req = new Request(`http://localhost/api/v1${path}`, { method, headers, body: text });
  const segments = path.split("/").slice(1).map(decodeURIComponent);
  const res = await HANDLERS[method](req, { params: Promise.resolve({ path: segments }) });
  const json = await res.json();
  return { status: res.status, body: json, headers: res.headers };
}

/** The API as one service key sees it. */
export function platform(key: string) {
  return {
    putLearner: (id: string, body: unknown) => callApi("PUT", `/learners/${id}`, body, { key }),
    putMaterial: (learner: string, id: string, body: unknown) =>
      callApi("PUT", `/learners/${learner}/materials/${id}`, body, { key }),
    activity: (learner: string, body: unknown) => callApi("POST", `/learners/${learner}/activity`, body, { key }),
    startJob: (learner: string, body: unknown) => callApi("POST", `/learners/${learner}/jobs`, body, { key }),
    getJob: (id: string) => callApi("GET", `/jobs/${id}`, undefined, { key }),
    cancelJob: (id: string) => callApi("POST", `/jobs/${encodeURIComponent(id)}/cancel`, undefined, { key }),
    exportLearner: (learner: string) => callApi("GET", `/learners/${learner}/export`, undefined, { key }),
    eraseLearner: (learner: string) => callApi("DELETE", `/learners/${learner}`, undefined, { key }),
  };
}
