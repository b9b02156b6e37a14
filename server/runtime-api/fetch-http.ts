import { retryAfter } from "./node-http";
import { readTextWithin } from "../read-within";
import { PROTOCOL_HEADER } from "./protocol";
import { dispatch, errorAnswer, MAX_BODY_BYTES, tooLarge, type RuntimeResponse } from "./dispatch";

/** Past this much, an oversize body is not read to its end to answer 413 politely. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The Runtime API on the web's Request and Response: what the App Router route handler
 * (app/internal/runtime/jobs/[...path]/route.ts) calls. Reads the body keeping at most
 * MAX_BODY_BYTES (413 above it), then dispatch() — the same function every other door calls.
 */
export async function serveRuntimeRequest(req: Request, path: string[]): Promise<Response> {
  let answer: RuntimeResponse;
  try {
    // Read only once dispatch() has verified the Runtime key: an unknown caller's body is never read.
    const body = () => readBody(req);
    answer = await dispatch({
      method: req.method,
      path,
      authorization: req.headers.get("authorization"),
      contentType: req.headers.get("content-type"),
      protocol: req.headers.get(PROTOCOL_HEADER),
      body,
      // A long poll whose client has gone stops waiting and frees its waiter.
      signal: req.signal,
    });
  } catch (e) {
    answer = errorAnswer(e);
  }
  return new Response(JSON.stringify(answer.body), {
    status: answer.status,
    headers: { "content-type": "application/json", ...retryAfter(answer.status), ...answer.headers },
  });
}

async function readBody(req: Request): Promise<string> {
  const opts = { declaredLength: req.headers.get("content-length"), drainUpTo: DRAIN_LIMIT_BYTES };
  const text = await readTextWithin(req.body, MAX_BODY_BYTES, opts);
  if (text === null) throw tooLarge();
  return text;
}
