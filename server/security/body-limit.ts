import { webSecurityConfig } from "../config";
import { readWithin } from "../read-within";

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
 * Reads at most `limit` bytes of a request's body (server/read-within.ts): a declared
 * Content-Length over the limit is refused without reading a byte, a chunked body is read only
 * until it passes the limit. Returns null when the body is too large.
 */
export function readBodyWithin(req: Request, limit: number): Promise<Uint8Array | null> {
  return readWithin(req.body, limit, { declaredLength: req.headers.get("content-length") });
}

/**
 * The request with its body read into memory (at most the configured limit), or a 413 answer.
 * GET and HEAD carry no body and pass unchanged.
 */
export async function limitRequestBody(
  req: Request,
  limit = webSecurityConfig.maxBodyBytes,
): Promise<Request | Response> {
  if (req.method === "GET" || req.method === "HEAD") return req;
  const body = await readBodyWithin(req, limit);
  if (!body) return payloadTooLarge(limit);
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(req.url, {
    method: req.method,
    headers,
    body: body.byteLength ? (body as BodyInit) : undefined,
    signal: req.signal,
  });
}
