import { getDb } from "./db";
import { now } from "./clock";

const written = new Map<string, { at: number; capabilities?: string; protocol?: string }>();
/** lastSeenAt is recorded with a 1 s resolution per app process: one write per instance per second, not per request. */
const RESOLUTION_MS = 1000;

export async function touchRuntimeInstance(
  id: string,
  info: { capabilities?: string[]; version?: string | null; protocolVersion?: string } = {},
) {
  const t = Date.now();
  const caps = info.capabilities ? [...info.capabilities].sort().join(",") : undefined;
  const last = written.get(id);
  const sameProtocol = info.protocolVersion === undefined || info.protocolVersion === last?.protocol;
  if (last && last.at + RESOLUTION_MS > t && (caps === undefined || caps === last.capabilities) && sameProtocol) return;
  written.set(id, {
    at: t,
    capabilities: caps ?? last?.capabilities,
    protocol: info.protocolVersion ?? last?.protocol,
  });
  const at = now();
  const capabilities = info.capabilities ?? null;
  await getDb().$executeRaw`
    INSERT INTO "RuntimeInstance" (id, capabilities, version, "protocolVersion", "firstSeenAt", "lastSeenAt")
    VALUES (${id}, ${capabilities ?? []}::text[], ${info.version ?? null}, ${info.protocolVersion ?? null}, ${at}::timestamp(3), ${at}::timestamp(3))
    ON CONFLICT (id) DO UPDATE SET "lastSeenAt" = EXCLUDED."lastSeenAt",
      capabilities = CASE WHEN ${capabilities === null} THEN "RuntimeInstance".capabilities ELSE EXCLUDED.capabilities END,
      version = COALESCE(EXCLUDED.version, "RuntimeInstance".version),
      "protocolVersion" = COALESCE(EXCLUDED."protocolVersion", "RuntimeInstance"."protocolVersion")`;
}
