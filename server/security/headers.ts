/**
 * Security headers (docs/security.md). Pages get a per-request CSP with a nonce from proxy.ts;
 * API answers, which are never rendered as documents, get a policy that allows nothing at all.
 * The headers common to both are set for every path in next.config.js (the Runtime protocol's
 * App Router routes included) and by the production server's short door
 * (server/runtime-api/door.ts); tests/e2e/security.spec.ts checks all three kinds of answer.
 */

/**
 * Scripts run only from this origin and only when they carry this request's nonce (Next adds it
 * to its own scripts and inline bootstrap); 'strict-dynamic' lets those load their chunks. Inline
 * `style` attributes stay allowed (React sets a few); no inline script can run without the nonce.
 * Development adds 'unsafe-eval', which React's dev build needs for its error overlays.
 */
/**
 * `formOrigins`: other origins a form post may end up at. The "Sign in with …" form posts here and
 * is redirected to the OpenID Connect provider, which `form-action` would otherwise block.
 */
export function pageContentSecurityPolicy(nonce: string, dev: boolean, formOrigins: string[] = []): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    ["form-action 'self'", ...formOrigins].join(" "),
    "frame-ancestors 'none'",
  ].join("; ");
}

/** For JSON and event-stream answers: nothing may load, nothing may frame them. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** Sent with every answer, page or API. */
export const COMMON_SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  // For browsers that predate frame-ancestors.
  "x-frame-options": "DENY",
};

/** A fresh, unguessable nonce per page request. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}
