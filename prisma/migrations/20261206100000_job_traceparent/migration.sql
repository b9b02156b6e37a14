-- OpenTelemetry (SPEC §9): the W3C trace context of the span that created a job, so the claim, the
-- stages and the result of every attempt join the job's one trace (server/observability/job-spans.ts).
-- A nullable column without a default: added to the partitioned parent, it reaches every partition
-- (and every partition made later) as a change of the catalog only, without rewriting a row.
ALTER TABLE "AiRuntimeJob" ADD COLUMN "traceparent" TEXT;
