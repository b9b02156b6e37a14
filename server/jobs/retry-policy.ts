import { Prisma } from "../generated/prisma/client";
import { jobConfig } from "../config";

/**
 * The retry policy, in SQL on the job row `j`: whether an ended attempt is tried again, and when.
 * A failure reported by a Runtime (server/jobs/results.ts) and a passed lease (server/jobs/sweep.ts,
 * also run by claim and poll) decide the same way.
 */

/** Tried again while retries remain, and (for a reported failure) its code is retryable; a passed lease always is. */
export function retriesWhen(retryable?: boolean) {
  const left = Prisma.sql`j."retryCount" < j."maxRetryCount"`;
  return retryable === undefined ? left : Prisma.sql`(${retryable} AND ${left})`;
}

/**
 * Backoff before retry n (0-based): base · 2^n, capped, with equal jitter (half fixed, half
 * random). A provider's Retry-After raises it to at least that long, still within the cap.
 */
export function backoffSql(retryAfterMs = 0) {
  const cap = jobConfig.backoffCapMs;
  return Prisma.sql`make_interval(secs => GREATEST(LEAST(${cap}::float8, ${jobConfig.backoffBaseMs}::float8 * power(2, j."retryCount")) * (0.5 + random() * 0.5),
    LEAST(${cap}::float8, ${retryAfterMs}::float8)) / 1000.0)`;
}
