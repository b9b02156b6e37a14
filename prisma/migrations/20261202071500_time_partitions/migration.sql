-- Time partitions (issue 26, item 4): jobs, their results and their events are partitioned by
-- RANGE of the job id. Job ids are cuids, "c" then the creation time in milliseconds in base 36
-- (8 digits until 2059), so a range of ids is a range of creation times and a job's result and
-- events sit in the partition of the same range as the job. Retention drops a whole range once
-- every job in it has ended before the cutoff (server/jobs/partitions.ts), instead of deleting rows.
--
-- Layout made here: "<table>_before" holds every id below this migration's time (all jobs made so
-- far), "<table>_default" anything no range holds (ids that are not cuids). The app makes the
-- ranges from now on, ahead of time (JOB_PARTITION_DAYS wide), at start and daily.
-- Rows are copied: this migration rewrites the three tables once.
--
-- A unique index of a partitioned table must contain the partition key, so the two creation keys
-- (idempotency key, the same input in flight) become plain indexes and creation takes a
-- transaction advisory lock per key instead (server/jobs/create.ts). A result's idempotency key is
-- checked per job (server/jobs/results.ts) and the job id is unique among results.

ALTER TABLE "AiRuntimeResult" DROP CONSTRAINT "AiRuntimeResult_jobId_fkey";
ALTER TABLE "JobEvent" DROP CONSTRAINT "JobEvent_jobId_fkey";
ALTER TABLE "FlashcardMark" DROP CONSTRAINT "FlashcardMark_jobId_fkey";
ALTER TABLE "JobRejection" DROP CONSTRAINT "JobRejection_jobId_fkey";
ALTER TABLE "NextActionTick" DROP CONSTRAINT "NextActionTick_jobId_fkey";
ALTER TABLE "AiRuntimeJob" DROP CONSTRAINT "AiRuntimeJob_retriedFromJobId_fkey";

CREATE TABLE "AiRuntimeJob_new" (LIKE "AiRuntimeJob" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE) PARTITION BY RANGE ("id");
CREATE TABLE "AiRuntimeResult_new" (LIKE "AiRuntimeResult" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE) PARTITION BY RANGE ("jobId");
CREATE TABLE "JobEvent_new" (LIKE "JobEvent" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE) PARTITION BY RANGE ("jobId");

DO $$
DECLARE
  ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
  digits text := '';
  bound text;
  t text;
BEGIN
  WHILE ms > 0 LOOP
    digits := substr('0123456789abcdefghijklmnopqrstuvwxyz', (ms % 36)::int + 1, 1) || digits;
    ms := ms / 36;
  END LOOP;
  bound := 'c' || lpad(digits, 8, '0');
  FOREACH t IN ARRAY ARRAY['AiRuntimeJob', 'AiRuntimeResult', 'JobEvent'] LOOP
    -- Jobs keep the room for HOT heartbeats (migration hot_heartbeats): a partition's own setting.
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (MINVALUE) TO (%L) %s', t || '_before', t || '_new', bound,
      CASE WHEN t = 'AiRuntimeJob' THEN 'WITH (fillfactor = 85)' ELSE '' END);
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT %s', t || '_default', t || '_new',
      CASE WHEN t = 'AiRuntimeJob' THEN 'WITH (fillfactor = 85)' ELSE '' END);
  END LOOP;
END $$;

INSERT INTO "AiRuntimeJob_new" SELECT * FROM "AiRuntimeJob";
INSERT INTO "AiRuntimeResult_new" SELECT * FROM "AiRuntimeResult";
INSERT INTO "JobEvent_new" SELECT * FROM "JobEvent";

ALTER SEQUENCE "JobEvent_id_seq" OWNED BY NONE;
DROP TABLE "JobEvent";
DROP TABLE "AiRuntimeResult";
DROP TABLE "AiRuntimeJob";
ALTER TABLE "AiRuntimeJob_new" RENAME TO "AiRuntimeJob";
ALTER TABLE "AiRuntimeResult_new" RENAME TO "AiRuntimeResult";
ALTER TABLE "JobEvent_new" RENAME TO "JobEvent";
ALTER SEQUENCE "JobEvent_id_seq" OWNED BY "JobEvent"."id";

ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_pkey" PRIMARY KEY ("id");
CREATE INDEX "AiRuntimeJob_userId_createdAt_idx" ON "AiRuntimeJob"("userId", "createdAt");
CREATE INDEX "AiRuntimeJob_targetType_targetId_idx" ON "AiRuntimeJob"("targetType", "targetId");
CREATE INDEX "AiRuntimeJob_createdAt_id_idx" ON "AiRuntimeJob"("createdAt", "id");
CREATE INDEX "AiRuntimeJob_status_createdAt_id_idx" ON "AiRuntimeJob"("status", "createdAt", "id");
CREATE INDEX "AiRuntimeJob_jobType_createdAt_id_idx" ON "AiRuntimeJob"("jobType", "createdAt", "id");
CREATE INDEX "AiRuntimeJob_params_idx" ON "AiRuntimeJob" USING GIN ("params" jsonb_path_ops);
CREATE INDEX "AiRuntimeJob_pending_queue_idx" ON "AiRuntimeJob"("priority", "queueTurn", "createdAt") WHERE (status = 'pending'::"JobStatus");
CREATE INDEX "AiRuntimeJob_pending_learner_idx" ON "AiRuntimeJob"("userId", "priority", "queueTurn") WHERE (status = 'pending'::"JobStatus");
CREATE INDEX "AiRuntimeJob_retriedFromJobId_idx" ON "AiRuntimeJob"("retriedFromJobId") WHERE ("retriedFromJobId" IS NOT NULL);
CREATE INDEX "AiRuntimeJob_finishedAt_idx" ON "AiRuntimeJob"("finishedAt") WHERE ("finishedAt" IS NOT NULL);
CREATE INDEX "AiRuntimeJob_errorCode_createdAt_idx" ON "AiRuntimeJob"("errorCode", "createdAt") WHERE ("errorCode" IS NOT NULL);
CREATE INDEX "AiRuntimeJob_lease_idx" ON "AiRuntimeJob"("leaseCheckAt") WHERE (status = ANY (ARRAY['locked'::"JobStatus", 'running'::"JobStatus", 'expired'::"JobStatus"]));
CREATE INDEX "AiRuntimeJob_rare_endings_idx" ON "AiRuntimeJob"("status", "jobType", "createdAt", "id") WHERE (status = ANY (ARRAY['failed'::"JobStatus", 'cancelled'::"JobStatus"]));
CREATE INDEX "AiRuntimeJob_idempotency_idx" ON "AiRuntimeJob"("idempotencyKey", "userId", "jobType", "targetType", "targetId") WHERE ("idempotencyKey" IS NOT NULL);
CREATE INDEX "AiRuntimeJob_inflight_input_idx" ON "AiRuntimeJob"("userId", "inputHash") WHERE (("idempotencyKey" IS NULL) AND (status = ANY (ARRAY['pending'::"JobStatus", 'locked'::"JobStatus", 'running'::"JobStatus", 'expired'::"JobStatus"])));

ALTER TABLE "AiRuntimeResult" ADD CONSTRAINT "AiRuntimeResult_pkey" PRIMARY KEY ("id", "jobId");
CREATE UNIQUE INDEX "AiRuntimeResult_jobId_key" ON "AiRuntimeResult"("jobId");
CREATE INDEX "AiRuntimeResult_output_idx" ON "AiRuntimeResult" USING GIN ("output" jsonb_path_ops);

ALTER TABLE "JobEvent" ADD CONSTRAINT "JobEvent_pkey" PRIMARY KEY ("id", "jobId");
CREATE INDEX "JobEvent_jobId_createdAt_idx" ON "JobEvent"("jobId", "createdAt");
CREATE INDEX "JobEvent_createdAt_idx" ON "JobEvent"("createdAt");
CREATE INDEX "JobEvent_actorId_createdAt_idx" ON "JobEvent"("actorId", "createdAt");

ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_snapshotId_fkey" FOREIGN KEY ("snapshotId") REFERENCES "Snapshot"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_retriedFromJobId_fkey" FOREIGN KEY ("retriedFromJobId") REFERENCES "AiRuntimeJob"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "AiRuntimeResult" ADD CONSTRAINT "AiRuntimeResult_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "JobEvent" ADD CONSTRAINT "JobEvent_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "FlashcardMark" ADD CONSTRAINT "FlashcardMark_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "JobRejection" ADD CONSTRAINT "JobRejection_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "NextActionTick" ADD CONSTRAINT "NextActionTick_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ANALYZE "AiRuntimeJob";
ANALYZE "AiRuntimeResult";
ANALYZE "JobEvent";
