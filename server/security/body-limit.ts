import { webSecurityConfig } from "../config";

/** The error shape every door answers with, for a body over the limit. */
export function payloadTooLarge(limit: number): Response {
  const message = `request body over ${limit} bytes`;
  return Response.json(
    {
      error: {
        code: "PAYLOAD_TOO_LARGE",
        message,
        details: { limitBytes: limit },
        // What tRPC clients read from an error answer.
        data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, appCode: "PAYLOAD_TOO_LARGE" },
      },
    },
    { status: 413, headers: { connection: "close", "cache-control": "no-store" } },
  );
}

/**
 * Reads at most `limit` bytes of a request's body. A declared Content-Length over the limit is
 * refused without reading a byte; a chunked body is read only until it passes the limit, then the
 * stream is cancelled. So a 150 MB POST costs at most `limit` bytes of memory, never its size.
 * Returns null when the body is too large.
 */
export async function readBodyWithin(req: Request, limit: number): Promise<Uint8Array | null> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await req.body?.cancel().catch(() => {});
    return null;
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/**
 * The request with its body read into memory (at most the configured limit), or a 413 answer.
 * GET and HEAD carry no body and pass unchanged.
 */
export async function limitRequestBody(req: Request, limit = webSecurityConfig.maxBodyBytes): Promise<Request | Response> {
  if (req.method === "GET" || req.method === "HEAD") return req;
  const body = await readBodyWithin(req, limit);
  if (!body) return payloadTooLarge(limit);
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(req.url, { method: req.method, headers, body: body.byteLength ? (body as BodyInit) : undefined, signal: req.signal });
}
