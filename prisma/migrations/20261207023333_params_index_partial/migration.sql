-- The analyses' params are always {}, and each new version of a job row (every status change) added
-- an entry for them to this index. Built again without them; the build holds writes to the job
-- table for its length (measured at a million jobs: docs/postgres-per-job.md).
DROP INDEX "AiRuntimeJob_params_idx";

CREATE INDEX "AiRuntimeJob_params_idx" ON "AiRuntimeJob" USING GIN ("params" jsonb_path_ops) WHERE (params <> '{}'::jsonb);
