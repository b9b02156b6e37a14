import { limitRequestBody } from "../security/body-limit";
import { getAuth } from "./auth";
import { clientIp } from "./client-ip";

/**
 * Every /api/auth request: the body is capped before better-auth reads it, and X-Forwarded-For
 * is replaced by the one client address taken through the trusted proxy hops, so better-auth's
 * per-IP limit and the sign-in throttle see the same address, and never one the client chose.
 * A POST whose Origin is `null` (a sandboxed frame, a data: page, a redirect chain) is refused
 * whatever Sec-Fetch-Site says: no page of this app posts with an opaque origin. The provider's
 * callback is exempt (a form_post callback comes from the provider's page).
 */
export async function handleAuthRequest(req: Request): Promise<Response> {
  if (req.method === "POST" && req.headers.get("origin")?.trim() === "null" && !isCallback(req))
    return Response.json(
      { code: "CROSS_SITE_REFUSED", message: "a request from an opaque (null) origin is refused" },
      { status: 403, headers: { "cache-control": "no-store" } },
    );
  const limited = await limitRequestBody(req);
  if (limited instanceof Response) return limited;
  const headers = new Headers(limited.headers);
  headers.set("x-forwarded-for", clientIp(limited.headers));
  return getAuth().handler(new Request(limited, { headers }));
}

const isCallback = (req: Request) => new URL(req.url).pathname.startsWith("/api/auth/callback/");
