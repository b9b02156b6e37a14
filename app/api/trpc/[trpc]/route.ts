import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContext } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";
import { isCrossSiteRequest } from "@/server/trpc/same-origin";

export const dynamic = "force-dynamic";

function handler(req: Request) {
  if (req.method !== "GET" && isCrossSiteRequest(req)) {
    return Response.json(
      { error: { message: "cross-site request refused", code: -32003, data: { code: "FORBIDDEN", httpStatus: 403, appCode: "FORBIDDEN" } } },
      { status: 403 },
    );
  }
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => createContext({ headers: req.headers }),
    // Answers are per user: no shared cache may keep them.
    responseMeta: () => ({ headers: new Headers({ "cache-control": "no-store" }) }),
  });
}

export { handler as GET, handler as POST };
