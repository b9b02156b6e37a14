import type { Span } from "@opentelemetry/api";
import type { LeasedJob } from "../server/runtime-api/contract";
import { contextFrom, inSpan, traceIdOf } from "../server/observability/tracing";
import { startTracing } from "../server/observability/tracing-sdk";

/**
 * The reference Runtime's traces, configured by its own OTEL_* variables (off when no OTLP
 * endpoint is set): service.name `reference-runtime` unless OTEL_SERVICE_NAME says otherwise, and
 * the instance id as service.instance.id.
 */
export function startRuntimeTracing(env: Record<string, string | undefined>, instanceId: string) {
  return startTracing({
    env,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || "reference-runtime",
    attributes: { "service.instance.id": instanceId },
  });
}

/**
 * One attempt of a leased job as the `runtime.job` span, a child of the lease's `traceparent` (the
 * app's claim span, in the job's trace; a trace of its own when the lease has none). The pipeline's
 * stage and model spans, and the Runtime's log lines, sit inside it.
 */
export function inJobSpan<T>(job: LeasedJob, instanceId: string, fn: (span: Span) => Promise<T>) {
  return inSpan(
    "runtime.job",
    { "job.id": job.id, "job.type": job.jobType, "job.attempt": job.attemptNo, "runtime.instance_id": instanceId },
    fn,
    { parent: contextFrom(job.traceparent) },
  );
}

/** The job's trace id for its log lines, from the lease, whether or not this Runtime exports spans. */
export const jobTraceFields = (job: LeasedJob) => {
  const traceId = traceIdOf(job.traceparent);
  return traceId ? { traceId } : {};
};
