import { setting } from "../config";

/**
 * CSRF defence for tRPC mutations, on top of the session cookie's SameSite=Lax: a browser sends
 * Sec-Fetch-Site and Origin with every POST, so a request another site's page made is refused
 * before any procedure runs. Non-browser clients send neither and are let through; they carry
 * no ambient cookies to abuse.
 */
export function isCrossSiteRequest(req: Request): boolean {
  const site = req.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return true;
  const origin = req.headers.get("origin");
  if (!origin) return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return true;
  }
  const host = req.headers.get("host") ?? new URL(req.url).host;
  if (originHost === host) return false;
  return !trustedOrigins().includes(origin);
}

/** The public origin behind a proxy that rewrites Host (BETTER_AUTH_URL), plus TRUSTED_ORIGINS. */
function trustedOrigins(): string[] {
  const list = [setting("BETTER_AUTH_URL"), ...setting("TRUSTED_ORIGINS").split(",")];
  return list.flatMap((u) => {
    try {
      return u?.trim() ? [new URL(u.trim()).origin] : [];
    } catch {
      return [];
    }
  });
}
