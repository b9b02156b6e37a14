import { AppError, RETRY_AFTER_SECONDS, isAppError, isDatabaseUnavailable, unavailable } from "../errors";
import { isCrossSiteRequest } from "../trpc/same-origin";
import { getSession, type Session } from "./session";
import { traceTag } from "../observability/tracing";

/** The error shape every door answers with ({error: {code, message, details?}}). */
export function errorAnswer(e: unknown): Response {
  if (!isAppError(e) && isDatabaseUnavailable(e)) return errorAnswer(unavailable(e));
  if (!isAppError(e)) {
    console.error(`[route] unexpected error${traceTag()}:`, e);
    return Response.json({ error: { code: "INTERNAL", message: "internal error" } }, { status: 500 });
  }
  const body = { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) };
  const limited = e.code === "RATE_LIMITED" && (e.details as { retryAfterSeconds?: number } | undefined);
  const retryAfter = limited ? limited.retryAfterSeconds : e.status === 503 ? RETRY_AFTER_SECONDS : undefined;
  const retry: Record<string, string> = retryAfter === undefined ? {} : { "retry-after": String(retryAfter) };
  return Response.json({ error: body }, { status: e.status, headers: { "cache-control": "no-store", ...retry } });
}

/**
 * The session of a route handler's request, checked as tRPC's userProcedure / adminProcedure
 * check theirs: signed in, password of their own, the role when asked; a POST from another site
 * is refused (CSRF). Throws AppError; the handler answers it with errorAnswer.
 */
export async function requireRouteSession(req: Request, opts: { admin?: boolean } = {}): Promise<Session> {
  if (req.method !== "GET" && req.method !== "HEAD" && isCrossSiteRequest(req))
    throw new AppError("FORBIDDEN", "cross-site request refused");
  const session = await getSession(req.headers);
  if (!session) throw new AppError("UNAUTHORIZED", "sign in first");
  if (session.user.mustChangePassword)
    throw new AppError("PASSWORD_CHANGE_REQUIRED", "change the one-time password first");
  if (opts.admin && session.user.role !== "admin") throw new AppError("FORBIDDEN", "admins only");
  return session;
}
