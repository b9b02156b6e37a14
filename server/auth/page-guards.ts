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

/** Only same-site paths are followed after sign-in, so ?next= cannot send people elsewhere. */
export function safeReturnPath(next: string | string[] | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  return value && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") ? value : "/";
}
