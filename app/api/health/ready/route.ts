import { readiness } from "@/server/observability/health";

export const dynamic = "force-dynamic";

/** Readiness: 200 while this instance should get traffic; 503 while draining, with the database down, or migrations pending. */
export async function GET() {
  const r = await readiness();
  return Response.json(r, { status: r.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
