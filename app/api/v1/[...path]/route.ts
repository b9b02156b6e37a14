import { servePlatformRequest } from "@/server/platform/http";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ path: string[] }> };

/** The platform API (docs/contract.md#learners-and-their-data, docs/platform-api.md): every method lands in dispatchPlatform(), which answers 404/405 itself. */
async function handle(req: Request, ctx: Ctx) {
  return servePlatformRequest(req, (await ctx.params).path);
}

export { handle as GET, handle as PUT, handle as POST, handle as DELETE, handle as PATCH };
