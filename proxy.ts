import { NextResponse, type NextRequest } from "next/server";
import { COMMON_SECURITY_HEADERS, newNonce, pageContentSecurityPolicy } from "@/server/security/headers";
import { oidcConfig } from "@/server/config";

/**
 * Pages only: a fresh nonce and the CSP naming it, on the request (Next reads the nonce from it
 * and puts it on its own scripts) and on the answer. API routes are left out of the matcher:
 * their headers come from next.config.js, and a proxy in front of them would make Next buffer
 * request bodies for it, which the body limit (server/security/body-limit.ts) must not have.
 */
export function proxy(request: NextRequest) {
  const sso = oidcConfig();
  const policy = pageContentSecurityPolicy(
    newNonce(),
    process.env.NODE_ENV === "development",
    sso ? [new URL(sso.issuer).origin] : [],
  );
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  for (const [name, value] of Object.entries(COMMON_SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: [{ source: "/((?!api/|internal/|_next/static|_next/image|favicon.ico).*)" }],
};
