import { health } from "@/server/observability/health";

export const dynamic = "force-dynamic";

/** 200 when the database answers and every migration is applied; 503 otherwise. */
export async function GET() {
  const h = await health();
  return Response.json(h, { status: h.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
