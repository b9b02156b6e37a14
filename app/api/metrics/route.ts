import crypto from "node:crypto";
import { prometheusText } from "@/server/observability/prometheus";
import { localSecret } from "@/server/security/local-secret";

export const dynamic = "force-dynamic";

/** Prometheus text format, behind `Authorization: Bearer $METRICS_TOKEN` (zero-setup: .data/metrics-token). */
export async function GET(req: Request) {
  const token = localSecret({ env: "METRICS_TOKEN", file: "metrics-token" });
  const given = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1] ?? "";
  const a = crypto.createHash("sha256").update(given).digest();
  const b = crypto.createHash("sha256").update(token).digest();
  if (!given || !crypto.timingSafeEqual(a, b)) {
    return Response.json(
      { error: { code: "UNAUTHORIZED", message: "metrics need the bearer token" } },
      { status: 401 },
    );
  }
  return new Response(await prometheusText(), {
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
  });
}
