import { metrics } from "./metrics";
import { queueStats } from "./queue-stats";
import { ALERT_CODES, getAlerts } from "./alerts";
import { JOB_TYPES } from "../jobs/constants";

const esc = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** The /api/metrics body: database-wide gauges first, then this instance's counters and histograms. */
export async function prometheusText(): Promise<string> {
  const [stats, alerts] = await Promise.all([queueStats(), getAlerts()]);
  const active = new Set(alerts.alerts.map((a) => a.code));
  const orphaned = new Map(alerts.pendingWithoutRuntime.map((o) => [o.jobType, o.pending]));
  const lines = [
    "# HELP ajr_jobs Jobs by state and type",
    "# TYPE ajr_jobs gauge",
    ...stats.byState.map((r) => `ajr_jobs{state="${esc(r.status)}",job_type="${esc(r.jobType)}"} ${r.n}`),
    "# HELP ajr_queue_depth Pending jobs visible to Runtimes now",
    "# TYPE ajr_queue_depth gauge",
    `ajr_queue_depth ${stats.queueDepth}`,
    "# HELP ajr_oldest_pending_age_seconds Age of the oldest visible pending job",
    "# TYPE ajr_oldest_pending_age_seconds gauge",
    `ajr_oldest_pending_age_seconds ${stats.oldestPendingAgeSeconds.toFixed(3)}`,
    "# HELP ajr_alert Console alerts: 1 while the condition holds (thresholds from config)",
    "# TYPE ajr_alert gauge",
    ...ALERT_CODES.map((c) => `ajr_alert{alert="${c.toLowerCase()}"} ${active.has(c) ? 1 : 0}`),
    "# HELP ajr_pending_without_runtime Visible pending jobs of a type that no live Runtime claims",
    "# TYPE ajr_pending_without_runtime gauge",
    ...JOB_TYPES.map((t) => `ajr_pending_without_runtime{job_type="${esc(t)}"} ${orphaned.get(t) ?? 0}`),
    "# HELP ajr_failure_rate_15m Share of jobs finished in the last 15 minutes that failed",
    "# TYPE ajr_failure_rate_15m gauge",
    `ajr_failure_rate_15m ${alerts.failureRate.toFixed(4)}`,
  ];
  return `${lines.join("\n")}\n${await metrics().registry.metrics()}`;
}
