import { oidcConfig } from "../config";
import { limitRequestBody } from "../security/body-limit";
import { handleAuthRequest } from "./handler";
import { safeReturnPath } from "./page-guards";
import { SSO_PROVIDER_ID } from "./sso";

function seeOther(location: string, setCookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of setCookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/**
 * The "Sign in with …" button's POST target, so it works without JavaScript: it asks
 * better-auth's /sign-in/social for the provider's authorization URL (with the browser's Origin
 * and cookies, so the CSRF check is better-auth's own) and answers 303 there, carrying the state
 * cookie. The provider comes back to /api/auth/callback/oidc; errors land on /sign-in?error=CODE.
 */
export async function startSsoFromForm(req: Request): Promise<Response> {
  const limited = await limitRequestBody(req);
  if (limited instanceof Response) return limited;
  if (!oidcConfig()) return seeOther("/sign-in");
  let next: string | undefined;
  try {
    const value = (await limited.formData()).get("next");
    next = typeof value === "string" ? value : undefined;
  } catch {
    next = undefined;
  }
  const headers = new Headers(limited.headers);
  headers.set("content-type", "application/json");
  const res = await handleAuthRequest(
    new Request(new URL("/api/auth/sign-in/social", limited.url), {
      method: "POST",
      headers,
      body: JSON.stringify({
        provider: SSO_PROVIDER_ID,
        callbackURL: safeReturnPath(next),
        errorCallbackURL: "/sign-in",
      }),
    }),
  );
  const url = res.ok ? ((await res.json().catch(() => null)) as { url?: unknown } | null)?.url : null;
  if (typeof url !== "string") return seeOther("/sign-in?error=SSO_FAILED");
  return seeOther(url, res.headers.getSetCookie());
}
