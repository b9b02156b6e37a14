import { setting } from "../config";
import { AppError } from "../errors";

/**
 * Per Runtime key, per app process: at most RUNTIME_KEY_RATE_LIMIT requests a second (a fixed
 * one-second window) and RUNTIME_KEY_CONCURRENCY at once (a parked long poll counts until it is
 * answered). Past either: 429 RATE_LIMITED with `retryAfterSeconds` and a Retry-After header, before
 * the body is parsed or the database is touched. In memory, as the platform door's bulkheads
 * (server/bulkheads.ts): the Runtime door answers one request per job, so a counted write per
 * request would cost more than the request.
 */
const windows = new Map<string, { second: number; n: number }>();
const inFlight = new Map<string, number>();

export function takeRuntimeCall(keyId: string, at = Date.now()): () => void {
  const second = Math.floor(at / 1000);
  const w = windows.get(keyId);
  const rate = setting("RUNTIME_KEY_RATE_LIMIT");
  if (w && w.second === second && w.n >= rate)
    throw new AppError("RATE_LIMITED", `at most ${rate} requests a second per Runtime key`, { retryAfterSeconds: 1 });
  const cap = setting("RUNTIME_KEY_CONCURRENCY");
  const running = inFlight.get(keyId) ?? 0;
  if (running >= cap)
    throw new AppError("RATE_LIMITED", `this Runtime key already has ${cap} requests in flight`, {
      retryAfterSeconds: 1,
    });
  if (w && w.second === second) w.n++;
  else {
    // One entry per key: the window moves on, it is not kept per second.
    if (windows.size > 10_000) windows.clear();
    windows.set(keyId, { second, n: 1 });
  }
  inFlight.set(keyId, running + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    const n = (inFlight.get(keyId) ?? 1) - 1;
    if (n > 0) inFlight.set(keyId, n);
    else inFlight.delete(keyId);
  };
}
