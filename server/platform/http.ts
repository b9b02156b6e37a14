import { readTextWithin } from "../read-within";
import { errorAnswer } from "../runtime-api/dispatch";
import { dispatchPlatform, maxBodyBytes, tooLarge, type PlatformResponse } from "./dispatch";

/**
 * The platform API on the web's Request and Response: what the App Router route
 * (app/api/v1/[...path]/route.ts) calls. dispatchPlatform() reads the body only once the caller is
 * known and allowed (key, scope, rate, slot): a declared length over the limit is 413 unread, and
 * a body is read only up to the first bytes past the limit (413, the rest never read).
 */
export async function servePlatformRequest(req: Request, path: string[]): Promise<Response> {
  let answer: PlatformResponse;
  try {
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const body = async () => {
      const limit = maxBodyBytes();
      const text = hasBody
        ? await readTextWithin(req.body, limit, { declaredLength: req.headers.get("content-length") })
        : "";
      if (text === null) throw tooLarge(limit);
      return text;
    };
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
