import { setting } from "../config";
import { AppError } from "../errors";
import { rateLimitStorage } from "../auth/rate-limit-storage";

const WINDOW_SECONDS = 60;

/**
 * Per service key: at most PLATFORM_API_RATE_LIMIT calls a minute, a fixed window counted by the
 * sign-in limiter's single upsert (server/auth/rate-limit-storage.ts) in its RateLimit table, so
 * every app instance shares the count. Past it: 429 RATE_LIMITED, and Retry-After says when the
 * window ends.
 */
export async function takeCall(keyId: string) {
  const max = setting("PLATFORM_API_RATE_LIMIT");
  const { allowed, retryAfter } = await rateLimitStorage.consume(`platform-api:${keyId}`, {
    window: WINDOW_SECONDS,
    max,
  });
  if (!allowed) {
    throw new AppError("RATE_LIMITED", `at most ${max} calls a minute per service key`, {
      retryAfterSeconds: retryAfter ?? WINDOW_SECONDS,
    });
  }
}
