/**
 * Every lease and schedule decision reads the time here, and passes it to SQL as a parameter, so
 * that tests can move time forward (lease expiry, backoff, timeouts) without sleeping.
 */
let offsetMs = 0;

export function now(): Date {
  return new Date(Date.now() + offsetMs);
}

/** Tests only: shifts this process's clock. */
export function advanceClock(ms: number) {
  offsetMs += ms;
}

export function resetClock() {
  offsetMs = 0;
}
