import { RETRY_AFTER_SECONDS } from "../errors";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readTextWithin } from "../read-within";
import { PROTOCOL_HEADER } from "./protocol";
import { dispatch, errorAnswer, MAX_BODY_BYTES, tooLarge, type RuntimeResponse } from "./dispatch";

/**
 * The Runtime API on Node's own request and response objects: what the production server's short
 * door calls (`npm start`: server/production-server.mjs → door.ts → here), and the tests' HTTP
 * servers and the bench harness. Under `next dev` and plain `next start` the App Router route
 * serves the protocol through fetch-http.ts instead. dispatch() verifies the Runtime key, then
 * reads the body (keeping at most MAX_BODY_BYTES).
 */
export async function serveRuntimeApi(req: IncomingMessage, res: ServerResponse, path: string[]) {
  let answer: RuntimeResponse;
  // A client that disconnects while its long poll waits frees the waiter at once.
  const gone = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) gone.abort();
  });
  try {
    // Read only once dispatch() has verified the Runtime key: an unknown caller's body is never read.
    const body = () => readBody(req);
    answer = await dispatch({
      method: req.method ?? "GET",
      path,
      authorization: req.headers.authorization ?? null,
      contentType: req.headers["content-type"] ?? null,
      protocol: (req.headers[PROTOCOL_HEADER] as string | undefined) ?? null,
      body,
      signal: gone.signal,
    });
  } catch (e) {
    answer = errorAnswer(e);
  }
  if (gone.signal.aborted) return;
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...retryAfter(answer.status),
    ...answer.headers,
  });
  res.end(text);
}

/** A 503 (the database busy or unreachable) tells the Runtime when to try again. */
export function retryAfter(status: number): Record<string, string> {
  return status === 503 ? { "retry-after": String(RETRY_AFTER_SECONDS) } : {};
}

/** Past this much, an oversize body is not drained to answer 413 politely: the connection is cut. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The body through the one capped reader (server/read-within.ts): an oversize body is read to its
 * end without being kept, so the answer is a clean 413 on a connection that stays usable; only
 * one far over the limit has its connection cut (the stream is destroyed).
 */
async function readBody(req: IncomingMessage): Promise<string> {
  const opts = { declaredLength: req.headers["content-length"] ?? null, drainUpTo: DRAIN_LIMIT_BYTES };
  const text = await readTextWithin(req, MAX_BODY_BYTES, opts);
  if (text === null) throw tooLarge();
  return text;
}

/** The path below /internal/runtime/jobs/ of a request URL, decoded; null when it is elsewhere. */
export function runtimePath(url: string): string[] | null {
  const pathname = new URL(url, "http://local").pathname;
  const m = /^\/internal\/runtime\/jobs\/(.+)$/.exec(pathname);
  if (!m) return null;
  try {
    return m[1]!.split("/").map(decodeURIComponent);
  } catch {
    return [];
  }
}
