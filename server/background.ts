import { databaseConfig, setting } from "./config";
import { closeDb } from "./db";
import { getJobFeed, stopJobFeed } from "./events/job-feed";
import { onShutdown } from "./lifecycle";
import { startWorkflowRelay } from "./events/workflow-relay";
import { inngestConfigured } from "./inngest/client";
import { webhookConfig } from "./notifications/webhook";
import { InProcessScheduler } from "./scheduler/in-process";
import { defaultTasks } from "./scheduler/tasks";
import { startRollupLoop } from "./scheduler/rollup-loop";

const g = globalThis as unknown as { __background?: boolean };

/**
 * What an app process runs beside its requests, started once from instrumentation.ts:
 * - with an Inngest server (INNGEST_DEV=1, or signing + event keys) the crons are Inngest
 *   functions; without one (zero-setup) the in-process scheduler runs the same tasks;
 * - the workflow relay turns committed job changes into Inngest events, or delivers the
 *   finished-job webhook itself when there is no Inngest.
 * - the console rollups are folded every few seconds in-process in both modes (rollup-loop.ts).
 * IN_PROCESS_SCHEDULER=0 turns the scheduler and the rollup loop off (e.g. on instances that should only serve).
 */
export function startBackground(log: (m: string) => void = (m) => console.log(m)) {
  // The scheduler's advisory locks are held by a session: the direct URL.
  const databaseUrl = databaseConfig.sessionUrl;
  if (g.__background || !databaseUrl) return;
  g.__background = true;
  const inngest = inngestConfigured();
  // Registered first, so they run last on shutdown: the pool outlives everything that queries it.
  onShutdown("database pool", closeDb);
  onShutdown("job feed (LISTEN)", stopJobFeed);
  if (!inngest && setting("IN_PROCESS_SCHEDULER") === "1") {
    const scheduler = new InProcessScheduler(databaseUrl, defaultTasks(), (run) => {
      if (run.error) log(`[scheduler] ${run.task} failed: ${run.error}`);
      else if (run.ran && run.task === "sweep-leases" && (run.result as { expired?: number })?.expired)
        log(`[scheduler] sweep ended ${(run.result as { expired: number }).expired} passed leases`);
    }).start();
    onShutdown("scheduler", () => scheduler.stop());
    log("[background] in-process scheduler started (no Inngest server configured)");
  }
  if (setting("IN_PROCESS_SCHEDULER") === "1") startRollupLoop(log);
  if (inngest || webhookConfig()) onShutdown("workflow relay", startWorkflowRelay(getJobFeed()));
}
