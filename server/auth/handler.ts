import { limitRequestBody } from "../security/body-limit";
import { getAuth } from "./auth";
import { clientIp } from "./client-ip";

/**
 * Every /api/auth request: the body is capped before better-auth reads it, and X-Forwarded-For
 * is replaced by the one client address taken through the trusted proxy hops, so better-auth's
 * per-IP limit and the sign-in throttle see the same address, and never one the client chose.
 */
export async function handleAuthRequest(req: Request): Promise<Response> {
  const limited = await limitRequestBody(req);
  if (limited instanceof Response) return limited;
  const headers = new Headers(limited.headers);
  headers.set("x-forwarded-for", clientIp(limited.headers));
  return getAuth().handler(new Request(limited, { headers }));
}
