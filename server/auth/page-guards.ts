import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getSession, type Session } from "./session";

/**
 * Where a page request must go instead, or null to render it: anonymous visitors to the
 * sign-in page (coming back afterwards), non-admins away from /admin.
 */
export function pageRedirect(session: Session | null, area: "learner" | "admin", returnTo: string): string | null {
  if (!session) return `/sign-in?next=${encodeURIComponent(returnTo)}`;
  if (session.user.mustChangePassword) return `/account/password?next=${encodeURIComponent(returnTo)}`;
  if (area === "admin" && session.user.role !== "admin") return "/";
  return null;
}

/** For server components: the signed-in session, or a redirect to the sign-in page. */
export async function requirePageSession(returnTo: string): Promise<Session> {
  const session = await getSession(await headers());
  const to = pageRedirect(session, "learner", returnTo);
  if (to || !session) redirect(to ?? "/sign-in");
  return session;
}

/** The /admin layout's guard, checked on the server before anything renders. */
export async function requireAdminPage(): Promise<Session> {
  const session = await getSession(await headers());
  const to = pageRedirect(session, "admin", "/admin");
  if (to || !session) redirect(to ?? "/sign-in");
  return session;
}

const LOCAL = "http://return-path.invalid";

/**
 * Only a path on this site is followed after sign-in, so ?next= cannot send people elsewhere.
 * Browsers drop tabs and newlines from URLs and read `\` as `/`, so `/<TAB>/evil.com` would
 * become `//evil.com`: any control character or backslash sends people home instead. The path is
 * then re-serialised by the URL parser, which percent-encodes everything else (so the answer's
 * Location header can always be written) and must leave the origin unchanged.
 */
export function safeReturnPath(next: string | string[] | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  if (!value || !value.startsWith("/") || value.length > 2048 || /[\u0000-\u001f\u007f-\u009f\\]/.test(value))
    return "/";
  let url: URL;
  try {
    url = new URL(value, LOCAL);
  } catch {
    return "/";
  }
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (url.origin !== LOCAL || path.startsWith("//") || /[^\x21-\x7e]/.test(path)) return "/";
  return path;
}
