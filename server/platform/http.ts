import { readTextWithin } from "../read-within";
import { errorAnswer } from "../runtime-api/dispatch";
import { dispatchPlatform, maxBodyBytes, tooLarge, type PlatformResponse } from "./dispatch";

/** Past this much, an oversize body is not read to its end to answer 413 politely. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The platform API on the web's Request and Response: what the App Router route
 * (app/api/v1/[...path]/route.ts) calls. Reads the body keeping at most the limit (413 above it,
 * the rest never held in memory), then dispatchPlatform().
 */
export async function servePlatformRequest(req: Request, path: string[]): Promise<Response> {
  let answer: PlatformResponse;
  try {
    const limit = maxBodyBytes();
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const body = hasBody
      ? await readTextWithin(req.body, limit, {
          declaredLength: req.headers.get("content-length"),
          drainUpTo: DRAIN_LIMIT_BYTES,
        })
      : "";
    if (body === null) throw tooLarge(limit);
    answer = await dispatchPlatform({
      method: req.method,
      path,
      authorization: req.headers.get("authorization"),
      contentType: req.headers.get("content-type"),
      body,
    });
  } catch (e) {
    answer = errorAnswer(e);
  }
  // A streamed answer (a learner's export) goes out as it is written.
  const body = answer.body instanceof ReadableStream ? answer.body : JSON.stringify(answer.body);
  return new Response(body, {
    status: answer.status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...answer.headers },
  });
}
