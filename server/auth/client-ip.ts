import { webSecurityConfig } from "../config";

/**
 * The client's IP for per-client limits. X-Forwarded-For is read from the right: the production
 * server appends the address of the socket it accepted (server/production-server.mjs), and each of the
 * TRUSTED_PROXY_HOPS reverse proxies in front of it appends the address it saw. The entry that
 * many places from the right is therefore the first address no client could choose; everything
 * further left was sent by the client and is ignored, so a made-up header buys no fresh budget.
 */
export function clientIp(headers: Headers, hops = webSecurityConfig.trustedProxyHops): string {
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  if (chain.length === 0) return "unknown";
  // Fewer entries than configured proxies: the leftmost is the best there is (a misconfiguration).
  const entry = chain[Math.max(0, chain.length - 1 - hops)]!;
  // Only the characters of an IPv4/IPv6 address: anything else is not an address a proxy wrote.
  return /^[0-9a-fA-F:.]{2,45}$/.test(entry) ? entry.toLowerCase() : "unknown";
}
