import { sweepExpiredLeases } from "./sweep";

const state = globalThis as unknown as { __sweepTimer?: NodeJS.Timeout };

/**
 * A minimal in-process lease sweep, for zero-setup mode and the system tests until the Inngest
 * cron exists: every `intervalMs` it ends passed leases so their jobs return to the queue.
 * Runs are never overlapped; several app instances may sweep at once (the sweep skips locked rows).
 */
export function startSweepScheduler(intervalMs: number, log: (msg: string) => void = console.log) {
  if (state.__sweepTimer) return () => {}; // Next may call register() more than once per process
  let busy = false;
  state.__sweepTimer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const r = await sweepExpiredLeases();
      if (r.expired) log(`[sweep] ended ${r.expired} passed leases: ${r.requeued} requeued, ${r.failed} failed, ${r.cancelled} cancelled`);
    } catch (e) {
      console.error("[sweep] failed:", (e as Error).message);
    } finally {
      busy = false;
    }
  }, intervalMs);
  state.__sweepTimer.unref();
  return () => {
    clearInterval(state.__sweepTimer);
    state.__sweepTimer = undefined;
  };
}
