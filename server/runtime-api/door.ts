import type { IncomingMessage, ServerResponse } from "node:http";
import { API_CONTENT_SECURITY_POLICY, COMMON_SECURITY_HEADERS } from "../security/headers";
import { errorAnswer } from "./dispatch";
import { runtimePath, serveRuntimeApi } from "./node-http";

/**
 * The Runtime protocol's short door in production. Next's per-request work (routing, a web
 * Request and Response around Node's, its tracer, web-stream bodies) cost ≈2.3 ms of app CPU per
 * job beside ≈1.2 ms for the protocol itself (bench-results/doors.md). So the production server
 * (server/production-server.mjs, plain JavaScript) hands /internal/runtime/jobs/* straight to
 * serveRuntimeApi() — but only the copy that Next compiled and loaded (instrumentation.ts
 * publishes it here at start), so every module still exists once and nothing is compiled at boot.
 * Same dispatch(), same answers, same headers as the App Router route, which stays the door under
 * `next dev` and plain `next start`.
 */
const KEY = Symbol.for("ai-job-runtime.runtime-door");

/** The headers next.config.js gives every /internal answer (tests/e2e/security.spec.ts checks both doors' answers). */
const HEADERS: Record<string, string> = {
  ...COMMON_SECURITY_HEADERS,
  "content-security-policy": API_CONTENT_SECURITY_POLICY,
};

/** Answers the request if it is a Runtime protocol call and returns true; false leaves it to Next. */
export function serveRuntimeDoor(req: IncomingMessage, res: ServerResponse): boolean {
  const path = req.url ? runtimePath(req.url) : null;
  if (!path) return false;
  for (const [name, value] of Object.entries(HEADERS)) res.setHeader(name, value);
  // serveRuntimeApi answers every error itself; this is only for a fault in writing the answer.
  void serveRuntimeApi(req, res, path).catch((e) => {
    const answer = errorAnswer(e);
    if (!res.headersSent) res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.body));
  });
  return true;
}

/** Called once at start from instrumentation.ts, inside Next's bundle. */
export function publishRuntimeDoor() {
  (globalThis as unknown as Record<symbol, typeof serveRuntimeDoor>)[KEY] = serveRuntimeDoor;
}
