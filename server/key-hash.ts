import crypto from "node:crypto";

/**
 * Bearer keys made by this service (Runtime keys, service keys): 256 random bits behind a
 * recognisable prefix, shown once; only a SHA-256 hash and a short prefix are stored. With that
 * much randomness a fast hash is enough (no password stretching needed), and lookup by hash plus a
 * constant-time comparison leaks nothing useful.
 */
export function newKey(prefix: string) {
  const key = prefix + crypto.randomBytes(32).toString("base64url");
  return { key, hash: hashKey(key), prefix: key.slice(0, prefix.length + 8) };
}

export function hashKey(key: string) {
  return crypto.createHash("sha256").update(key).digest("hex");
}

/** The token of an `Authorization: Bearer <key>` header, or null. */
export function bearerToken(authorization: string | null): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? null;
}

/** Whether a stored hash is the presented one, compared in constant time. */
export function sameHash(stored: string, presented: string) {
  return crypto.timingSafeEqual(Buffer.from(stored, "hex"), Buffer.from(presented, "hex"));
}
