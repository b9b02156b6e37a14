import { rollupConfig } from "../config";
import { advanceRollups } from "../observability/rollups";

/**
 * Folds new job events into the console rollups every ROLLUP_INTERVAL_MS, in every app process
 * that starts it — with or without Inngest, whose crons cannot run every few seconds. Processes
 * do not duplicate work: an advance that finds another one running skips (the state row is
 * taken FOR UPDATE SKIP LOCKED). A missed tick costs nothing but a longer live tail for reads.
 */
export function startRollupLoop(log: (m: string) => void): () => void {
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      await advanceRollups();
    } catch (e) {
      log(`[rollups] advance failed: ${(e as Error).message.split("\n")[0]}`);
    } finally {
      busy = false;
    }
  };
  const first = setTimeout(() => void tick(), 1_000);
  const every = setInterval(() => void tick(), rollupConfig.intervalMs);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
