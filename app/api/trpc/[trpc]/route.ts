import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContext } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";
import { isCrossSiteRequest } from "@/server/trpc/same-origin";
import { ANONYMOUS_BODY_BYTES, limitRequestBody, mayBeLarge, tooDeep } from "@/server/security/body-limit";
import { webSecurityConfig } from "@/server/config";
import { getSession, type Session } from "@/server/auth/session";
import { nestsDeeperThan } from "@/server/security/json-depth";
import { isAppError, RETRY_AFTER_SECONDS } from "@/server/errors";
import { fromUntrustedDoor } from "@/server/observability/job-spans";

export const dynamic = "force-dynamic";

async function handler(request: Request) {
  if (request.method !== "GET" && isCrossSiteRequest(request)) {
    return Response.json(
      {
        error: {
          message: "cross-site request refused",
          code: -32003,
          data: { code: "FORBIDDEN", httpStatus: 403, appCode: "FORBIDDEN" },
        },
      },
      { status: 403 },
    );
  }
  // A query's input travels in the URL: nested thousands deep, it is refused before tRPC parses it.
  const input = request.method === "GET" ? new URL(request.url).searchParams.get("input") : null;
  if (input && nestsDeeperThan(input)) return tooDeep();
  // Identity before a large body: one declared over ANONYMOUS_BODY_BYTES (or of unknown length) is
  // read only once its session is looked up; a caller with none has the anonymous limit.
  let known: Session | null | undefined;
  let limit = webSecurityConfig.maxBodyBytes;
  if (mayBeLarge(request) && !(Number(request.headers.get("content-length")) > limit)) {
    known = await getSession(request.headers).catch(() => undefined);
    if (known === null) limit = ANONYMOUS_BODY_BYTES;
  }
  // A 150 MB POST is refused by its declared length, or after at most the caller's limit's worth of bytes (docs/security.md).
  const req = await limitRequestBody(request, limit);
  if (req instanceof Response) return req;
  // A learner's browser never chooses a job's trace: an incoming traceparent stays with Next's request span.
  return fromUntrustedDoor(() =>
    fetchRequestHandler({
      endpoint: "/api/trpc",
      req,
      router: appRouter,
      createContext: () => createContext({ headers: req.headers, known }),
      // Answers are per user: no shared cache may keep them. A busy database's 503 says when to retry.
      responseMeta: ({ errors }) => {
        const headers = new Headers({ "cache-control": "no-store" });
        if (errors.some((e) => isAppError(e.cause) && e.cause.code === "UNAVAILABLE"))
          headers.set("retry-after", String(RETRY_AFTER_SECONDS));
        return { headers };
      },
    }),
  );
}

export { handler as GET, handler as POST };
