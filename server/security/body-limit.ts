import { webSecurityConfig } from "../config";
import { readWithin } from "../read-within";
import { nestsDeeperThan, tooDeepMessage } from "./json-depth";

/** The error shape every door answers with, readable by tRPC clients too (`data`), for a body refused before any handler. */
function refusal(
  status: number,
  code: "PAYLOAD_TOO_LARGE" | "MALFORMED_JSON" | "UNAUTHORIZED",
  message: string,
  details?: unknown,
) {
  const trpcCode = status === 413 ? "PAYLOAD_TOO_LARGE" : status === 401 ? "UNAUTHORIZED" : "BAD_REQUEST";
  return Response.json(
    {
      error: {
        code,
        message,
        ...(details === undefined ? {} : { details }),
        data: { code: trpcCode, httpStatus: status, appCode: code },
      },
    },
    { status, headers: { connection: "close", "cache-control": "no-store" } },
  );
}

/** A body over the limit: 413. */
export function payloadTooLarge(limit: number): Response {
  return refusal(413, "PAYLOAD_TOO_LARGE", `request body over ${limit} bytes`, { limitBytes: limit });
}

/**
 * The body limit of a caller nobody signed in. A body declared larger, or of unknown length, is
 * read only once the caller's session is looked up: with none, its limit is this (413 unread, or
 * at the first bytes past it); with one, the door's limit.
 */
export const ANONYMOUS_BODY_BYTES = 64 * 1024;

/** Whether a request's body may be larger than ANONYMOUS_BODY_BYTES (declared so, or of unknown length). */
export function mayBeLarge(req: Request): boolean {
  if (req.method === "GET" || req.method === "HEAD") return false;
  const declared = req.headers.get("content-length");
  return declared === null || !(Number(declared) <= ANONYMOUS_BODY_BYTES);
}

/** JSON nested deeper than MAX_JSON_DEPTH (a body, or tRPC's `input` query parameter): 400 MALFORMED_JSON. */
export const tooDeep = () => refusal(400, "MALFORMED_JSON", tooDeepMessage);

const FORM = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)/i;

/**
 * Reads at most `limit` bytes of a request's body (server/read-within.ts): a declared
 * Content-Length over the limit is refused without reading a byte, a chunked body is read only
 * until it passes the limit. Returns null when the body is too large.
 */
export function readBodyWithin(req: Request, limit: number): Promise<Uint8Array | null> {
  return readWithin(req.body, limit, { declaredLength: req.headers.get("content-length") });
}

/**
 * The request with its body read into memory (at most the configured limit), or a 413 answer; a
 * JSON body nested deeper than MAX_JSON_DEPTH is a 400 MALFORMED_JSON answer.
 * GET and HEAD carry no body and pass unchanged.
 */
export async function limitRequestBody(
  req: Request,
  limit = webSecurityConfig.maxBodyBytes,
): Promise<Request | Response> {
  if (req.method === "GET" || req.method === "HEAD") return req;
  const body = await readBodyWithin(req, limit);
  if (!body) return payloadTooLarge(limit);
  // Every body that is not a form is JSON to its handler (tRPC, better-auth, invitations).
  if (!FORM.test(req.headers.get("content-type") ?? "") && nestsDeeperThan(body)) return tooDeep();
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
