import type { BetterAuthRateLimitStorage } from "better-auth";
import { getReserveDb } from "../db-reserve";
import { now } from "../clock";

/**
 * better-auth's per-IP limiter, stored in its `RateLimit` table but decided by one upsert: the
 * database storage that ships with better-auth 1.7 opens an interactive transaction per request,
 * and 60 concurrent sign-ins exhausted the pool and answered 500 ("Unable to start a transaction
 * in the given time"). Here each request adds one to the count of its key's window (a fixed
 * window, from `lastRequest` = the window's start) and is allowed while the count is within
 * `max`; the statement's row lock serialises concurrent requests, so no two read the same count.
 */
export const rateLimitStorage: BetterAuthRateLimitStorage = {
  async consume(key, rule) {
    const at = now().getTime();
    const windowMs = rule.window * 1000;
    const expired = at - windowMs;
    const rows = await getReserveDb().$queryRaw<{ count: number; lastRequest: bigint }[]>`
      INSERT INTO "RateLimit" (id, key, count, "lastRequest")
      VALUES (gen_random_uuid()::text, ${key}, 1, ${at})
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN "RateLimit"."lastRequest" <= ${expired} THEN 1 ELSE "RateLimit".count + 1 END,
        "lastRequest" = CASE WHEN "RateLimit"."lastRequest" <= ${expired} THEN ${at} ELSE "RateLimit"."lastRequest" END
      RETURNING count, "lastRequest"`;
    const row = rows[0]!;
    if (row.count <= rule.max) return { allowed: true, retryAfter: null };
    return { allowed: false, retryAfter: Math.max(1, Math.ceil((Number(row.lastRequest) + windowMs - at) / 1000)) };
  },
};
