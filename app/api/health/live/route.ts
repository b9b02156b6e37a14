export const dynamic = "force-dynamic";

/** Liveness: the process answers HTTP. Nothing else is checked, so a database outage never gets a healthy instance restarted. */
export function GET() {
  return Response.json({ ok: true }, { headers: { "cache-control": "no-store" } });
}
