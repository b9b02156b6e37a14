import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getSession, type Session } from "./session";

/** For server components: the signed-in session, or a redirect to the sign-in page. */
export async function requirePageSession(returnTo: string): Promise<Session> {
  const session = await getSession(await headers());
  if (!session) redirect(`/sign-in?next=${encodeURIComponent(returnTo)}`);
  return session;
}

/** The /admin layout's guard, checked on the server before anything renders. */
export async function requireAdminPage(): Promise<Session> {
  const session = await requirePageSession("/admin");
  if (session.user.role !== "admin") redirect("/");
  return session;
}

/** Only same-site paths are followed after sign-in, so ?next= cannot send people elsewhere. */
export function safeReturnPath(next: string | string[] | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  return value && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") ? value : "/";
}
