import { Counter, Histogram, Registry } from "prom-client";
import { FAILED_ATTEMPT_STATUSES } from "../jobs/constants";

/**
 * Per-process counters and histograms (Prometheus sums them across instances); queue gauges are
 * read from the database at scrape time, so every instance reports the same truth for them.
 */
type Metrics = {
  registry: Registry;
  transitions: Counter;
  failures: Counter;
  httpDuration: Histogram;
  tokens: Counter;
  modelCallSeconds: Counter;
  estimatedCost: Counter;
};

const g = globalThis as unknown as { __metrics?: Metrics };

export function metrics(): Metrics {
  if (g.__metrics) return g.__metrics;
  const registry = new Registry();
  g.__metrics = {
    registry,
    transitions: new Counter({
      name: "ajr_job_transitions_total",
      help: "Job status changes made by this instance",
      labelNames: ["from", "to"],
      registers: [registry],
    }),
    failures: new Counter({
      name: "ajr_job_failures_total",
      help: "Failures recorded by this instance, by error code",
      labelNames: ["code"],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "ajr_runtime_request_duration_seconds",
      help: "Runtime protocol requests handled by this instance",
      labelNames: ["endpoint", "status"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    // Usage reported by Runtimes with result and fail (server/jobs/usage.ts), failed attempts included.
    tokens: new Counter({
      name: "ajr_model_tokens_total",
      help: "Model tokens reported by Runtimes, per attempt, by kind (prompt, completion)",
      labelNames: ["provider", "job_type", "api_key_mode", "kind"],
      registers: [registry],
    }),
    modelCallSeconds: new Counter({
      name: "ajr_model_call_seconds_total",
      help: "Time spent in model calls, as reported by Runtimes",
      labelNames: ["provider", "job_type", "api_key_mode"],
      registers: [registry],
    }),
    estimatedCost: new Counter({
      name: "ajr_model_estimated_cost_total",
      help: "Estimated model cost of the reported tokens at the configured prices when reported (docs/costs.md)",
      labelNames: ["provider", "job_type", "api_key_mode", "currency"],
      registers: [registry],
    }),
  };
  return g.__metrics;
}

export function countTransitions(rows: { fromStatus: string | null; status: string; errorCode: string | null }[]) {
  if (!rows.length) return;
  const m = metrics();
  for (const r of rows) {
    if (r.fromStatus === r.status) continue;
    m.transitions.inc({ from: r.fromStatus ?? "new", to: r.status });
    const failedAttempt =
      (FAILED_ATTEMPT_STATUSES as readonly string[]).includes(r.status) && r.fromStatus !== "pending";
    if (failedAttempt && r.errorCode) m.failures.inc({ code: r.errorCode });
  }
}
