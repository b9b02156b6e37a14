-- Explorer: failed or cancelled jobs of a type, newest first, read from their own small index
-- instead of walking every failed job when the type has few or none (docs/console-performance.md).
-- Partial, so a job that succeeds never writes an entry into it.
CREATE INDEX "AiRuntimeJob_rare_endings_idx" ON "AiRuntimeJob"("status", "jobType", "createdAt", "id") WHERE (status = ANY (ARRAY['failed'::"JobStatus", 'cancelled'::"JobStatus"]));
