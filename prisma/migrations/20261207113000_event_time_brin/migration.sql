-- The events' time index as a BRIN (docs/postgres-per-job.md): events are appended in time order
-- within their partition, so a block range summarises their times; a new event adds no index
-- entry until its range fills. The alerts' and the Runtimes page's windows read it. The table is
-- locked first (transitions wait for the build, as every migration that rebuilds an index of a
-- partitioned table makes them; measured at a million jobs in docs/postgres-per-job.md).
LOCK TABLE "JobEvent" IN ACCESS EXCLUSIVE MODE;
DROP INDEX "JobEvent_createdAt_idx";
CREATE INDEX "JobEvent_createdAt_idx" ON "JobEvent" USING BRIN ("createdAt") WITH (autosummarize = on);
