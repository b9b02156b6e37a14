import { metrics } from "./metrics";
import { queueStats } from "./queue-stats";

const esc = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** The /api/metrics body: database-wide gauges first, then this instance's counters and histograms. */
export async function prometheusText(): Promise<string> {
  const stats = await queueStats();
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
  ];
  return `${lines.join("\n")}\n${await metrics().registry.metrics()}`;
}
