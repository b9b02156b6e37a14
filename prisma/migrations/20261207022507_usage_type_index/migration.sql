-- No statement reads usage rows by job type and time (the cost panel reads them by time, then its
-- rollups); the index only cost each attempt's usage row one more entry.
DROP INDEX "JobUsage_jobType_createdAt_idx";
