import { getSession, type Session } from "./session";

function refuse(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status, headers: { "cache-control": "no-store" } });
}

/**
 * The route handlers' door, the same as the procedure ladder's userProcedure and the pages'
 * pageRedirect: no session is a 401, a session whose one-time password is still to be changed
 * is a 403 PASSWORD_CHANGE_REQUIRED (it may only change the password). Every route handler that
 * reads a session goes through here (tests/auth/password-change-gate.test.ts holds that).
 */
export async function requireRequestSession(req: Request): Promise<Session | Response> {
  const session = await getSession(req.headers);
  if (!session) return refuse(401, "UNAUTHORIZED", "sign in first");
  if (session.user.mustChangePassword)
    return refuse(403, "PASSWORD_CHANGE_REQUIRED", "change the one-time password first");
  return session;
}
