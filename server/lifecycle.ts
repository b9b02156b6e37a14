/**
 * The app process's lifecycle, shared with the production server (server/production-server.mjs)
 * through one globalThis slot under a registered symbol: that server is plain JavaScript outside
 * Next's bundle, and the symbol is the one name both sides can reach without loading this module
 * twice.
 *
 * SIGTERM: the server calls `beginDrain()` (readiness answers 503, long polls are answered now),
 * stops accepting, waits for in-flight requests up to `graceMs`, then calls `stop()`, which runs
 * the hooks registered with `onShutdown()` (scheduler, LISTEN feed, database pool) in reverse order.
 */
export type Lifecycle = {
  draining: boolean;
  /** Aborted when draining starts: what a waiting request listens to. */
  drain: AbortController;
  graceMs: number;
  hooks: { name: string; run: () => Promise<unknown> | unknown }[];
  beginDrain: () => void;
  stop: (log?: (m: string) => void, hookTimeoutMs?: number) => Promise<void>;
};

const KEY = Symbol.for("ai-job-runtime.lifecycle");
/** How long one shutdown hook may take before the next one runs. */
export const HOOK_TIMEOUT_MS = 5_000;
const slot = globalThis as unknown as Record<symbol, Lifecycle | undefined>;

function create(): Lifecycle {
  const life: Lifecycle = {
    draining: false,
    drain: new AbortController(),
    graceMs: 25_000,
    hooks: [],
    beginDrain() {
      if (life.draining) return;
      life.draining = true;
      life.drain.abort();
    },
    async stop(log = (m) => console.log(m), hookTimeoutMs = HOOK_TIMEOUT_MS) {
      life.beginDrain();
      // Reverse order: what started last (e.g. the relay on the feed) stops before what it uses (the pool).
      for (const hook of [...life.hooks].reverse()) {
        // A hook that never settles (e.g. waiting on a database that is gone) must not keep the
        // process alive: each gets hookTimeoutMs, then the next one runs.
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), hookTimeoutMs)));
        try {
          const outcome = await Promise.race([Promise.resolve().then(hook.run), timedOut]);
          if (outcome === "timeout") log(`[shutdown] ${hook.name} did not finish within ${hookTimeoutMs} ms; going on`);
        } catch (e) {
          log(`[shutdown] ${hook.name} failed: ${(e as Error).message}`);
        } finally {
          clearTimeout(timer);
        }
      }
      life.hooks = [];
    },
  };
  return life;
}

export function lifecycle(): Lifecycle {
  slot[KEY] ??= create();
  return slot[KEY]!;
}

export const isDraining = () => lifecycle().draining;

/** Aborted when the process starts draining: long polls and streams end early on it. */
export const drainSignal = () => lifecycle().drain.signal;

export function onShutdown(name: string, run: () => Promise<unknown> | unknown) {
  lifecycle().hooks.push({ name, run });
}
