import { sweepExpiredLeases } from "../jobs/sweep";
import { pruneFinishedJobs } from "../jobs/retention";
import { runWeeklyReview } from "../jobs/weekly-review";
import { setting } from "../config";
import { deliverDue } from "../notifications/deliveries";
import { processPendingBulkRuns } from "../admin/bulk-runner";

export type ScheduledTask = { id: string; everyMs: number; run: () => Promise<unknown> };

const MINUTE = 60_000;

/**
 * What zero-setup mode runs in-process instead of the Inngest crons — the same domain calls.
 * The weekly review is checked hourly: it is idempotent per learner and ISO week, so each active
 * learner gets one review in the first check of a week in which they are active.
 */
export function defaultTasks(): ScheduledTask[] {
  return [
    { id: "sweep-leases", everyMs: setting("SWEEP_INTERVAL_MS"), run: () => sweepExpiredLeases() },
    // Retries of zero-setup webhook deliveries (and any an instance recorded but could not send).
    { id: "webhook-deliveries", everyMs: 5_000, run: () => deliverDue() },
    { id: "prune-finished-jobs", everyMs: 24 * 60 * MINUTE, run: () => pruneFinishedJobs() },
    { id: "weekly-learning-review", everyMs: 60 * MINUTE, run: () => runWeeklyReview() },
    // Bulk runs start in the request's process; this resumes any whose process went away.
    { id: "bulk-runs", everyMs: 30_000, run: () => processPendingBulkRuns() },
  ];
}
