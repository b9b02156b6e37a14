/** Exponential backoff with equal jitter: half of base·2^n fixed, half random, capped. */
export function backoffDelay(failures: number, baseMs: number, maxMs: number) {
  const d = Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(d / 2 + (Math.random() * d) / 2);
}

/** Resolves after `ms`, or as soon as `signal` aborts (never rejects: callers check the signal). */
export function sleep(ms: number, signal?: AbortSignal) {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
