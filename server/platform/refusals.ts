import { setting } from "../config";
import { AppError } from "../errors";

/**
 * Keys held back from one learner's activity after a call filled a card's log (409 CARD_LOG_FULL):
 * finding that out costs reading and parsing the call (up to 1,000 items), so the same key's next
 * activity calls for that learner within CARD_LOG_FULL_COOLDOWN_SECONDS are 429 `RATE_LIMITED`
 * before their body is read. In memory, per process; at most MAX_HELD marks (the oldest go first).
 */
const MAX_HELD = 10_000;
const held = new Map<string, number>();

const nameOf = (keyId: string, params: Record<string, string>) => `${keyId}\u0000${params.externalId ?? ""}`;

/** Marks `keyId` as held back from this learner's activity for the cool-down. */
export function holdBack(keyId: string, params: Record<string, string>, nowMs = Date.now()) {
  const name = nameOf(keyId, params);
  held.delete(name);
  held.set(name, nowMs + setting("CARD_LOG_FULL_COOLDOWN_SECONDS") * 1000);
  if (held.size > MAX_HELD) held.delete(held.keys().next().value!);
}

/** The refusal for a held-back key (429 with the seconds left), or null. */
export function heldBack(keyId: string, params: Record<string, string>, nowMs = Date.now()): AppError | null {
  const name = nameOf(keyId, params);
  const until = held.get(name);
  if (until === undefined) return null;
  if (until <= nowMs) {
    held.delete(name);
    return null;
  }
  const retryAfterSeconds = Math.max(1, Math.ceil((until - nowMs) / 1000));
  return new AppError(
    "RATE_LIMITED",
    `this key's last activity call for this learner filled a card's log (409 CARD_LOG_FULL); retry after ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );
}
