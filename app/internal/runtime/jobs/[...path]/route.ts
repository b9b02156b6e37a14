import { serveRuntimeRequest } from "@/server/runtime-api/fetch-http";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ path: string[] }> };

/**
 * The Runtime protocol (docs/contract.md#the-runtime-protocol): POST /internal/runtime/jobs/poll and /{jobId}/{lock|heartbeat|result|fail}.
 * Every method lands in dispatch(), which answers 404/405 as JSON errors itself.
 */
async function handle(req: Request, ctx: Ctx) {
  return serveRuntimeRequest(req, (await ctx.params).path);
}

export { handle as POST, handle as GET, handle as PUT, handle as PATCH, handle as DELETE };
