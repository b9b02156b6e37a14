-- Each row of an attempt's record enters as few indexes as its reads need (docs/postgres-per-job.md).
-- A job's result is keyed by the job (one result per job; its id stays a column, still written and
-- returned). An attempt's usage row is keyed by (job, attempt); its id stays a column. The result
-- table's primary key is built again: writes of results wait for the build (measured at a million
-- jobs: docs/postgres-per-job.md).
ALTER TABLE "AiRuntimeResult" DROP CONSTRAINT "AiRuntimeResult_pkey";
DROP INDEX "AiRuntimeResult_jobId_key";
ALTER TABLE "AiRuntimeResult" ADD CONSTRAINT "AiRuntimeResult_pkey" PRIMARY KEY ("jobId");

ALTER TABLE "JobUsage" DROP CONSTRAINT "JobUsage_pkey";
ALTER TABLE "JobUsage" ADD CONSTRAINT "JobUsage_pkey" PRIMARY KEY USING INDEX "JobUsage_jobId_attemptNo_key";
