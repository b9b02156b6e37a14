import { sweepExpiredLeases } from "../jobs/sweep";
import { pruneFinishedJobs } from "../jobs/retention";
import { runWeeklyAnalysesIfDue } from "../jobs/weekly-analyses";
import { setting } from "../config";
import { deliverDue } from "../notifications/deliveries";
import { processPendingBulkRuns } from "../admin/bulk-runner";

export type ScheduledTask = { id: string; everyMs: number; run: () => Promise<unknown> };

const MINUTE = 60_000;
export const ANALYSES_TICK_MS = 10 * MINUTE;

/**
 * What zero-setup mode runs in-process instead of the Inngest crons — the same domain calls.
 * The weekly analyses wakes every 10 minutes but runs only in the Monday 06:00 UTC slot the Inngest
 * cron uses (server/jobs/weekly-analyses.ts), so both modes run on the same cadence.
 */
export function defaultTasks(): ScheduledTask[] {
  return [
    { id: "sweep-leases", everyMs: setting("SWEEP_INTERVAL_MS"), run: () => sweepExpiredLeases() },
    // Retries of zero-setup webhook deliveries (and any an instance recorded but could not send).
    { id: "webhook-deliveries", everyMs: 5_000, run: () => deliverDue() },
    { id: "prune-finished-jobs", everyMs: 24 * 60 * MINUTE, run: () => pruneFinishedJobs() },
    { id: "weekly-analyses", everyMs: ANALYSES_TICK_MS, run: () => runWeeklyAnalysesIfDue(ANALYSES_TICK_MS) },
    // Bulk runs start in the request's process; this resumes any whose process went away.
    { id: "bulk-runs", everyMs: 30_000, run: () => processPendingBulkRuns() },
  ];
}
