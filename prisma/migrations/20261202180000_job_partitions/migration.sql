-- Time partitions of the job table (issue 26, item 4): jobs are partitioned by RANGE of their id,
-- in the same spans as their events and results (migration event_result_partitions), so retention
-- drops a span's jobs, events and results as three tables instead of deleting rows
-- (server/jobs/partitions.ts). Each partition of the job table gets the same bounds and suffix as
-- the events' partition of the same span ("_before", "_default" and every "_p<start>" made so far),
-- and its rows are copied once.
--
-- Foreign keys from events and results to their job are declared per pair of partitions
-- ("JobEvent_p…" → "AiRuntimeJob_p…"), not on the parents: a check into one plain table, where a
-- check into the partitioned parent costs a lookup through every partition (docs/performance.md).
-- The app makes each new span's three partitions and their two keys together.
--
-- A unique index of a partitioned table must contain the partition key, so the two creation keys
-- (idempotency key; the same input in flight) become plain indexes, and creation takes a
-- transaction advisory lock per key before it looks them up (server/jobs/create.ts).

ALTER TABLE "AiRuntimeResult" DROP CONSTRAINT "AiRuntimeResult_jobId_fkey";
ALTER TABLE "JobEvent" DROP CONSTRAINT "JobEvent_jobId_fkey";
ALTER TABLE "FlashcardMark" DROP CONSTRAINT "FlashcardMark_jobId_fkey";
ALTER TABLE "JobRejection" DROP CONSTRAINT "JobRejection_jobId_fkey";
ALTER TABLE "NextActionTick" DROP CONSTRAINT "NextActionTick_jobId_fkey";
ALTER TABLE "AiRuntimeJob" DROP CONSTRAINT "AiRuntimeJob_retriedFromJobId_fkey";

CREATE TABLE "AiRuntimeJob_new" (LIKE "AiRuntimeJob" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE) PARTITION BY RANGE ("id");

DO $$
DECLARE
  p record;
BEGIN
  FOR p IN
    SELECT substr(c.relname, length('JobEvent') + 1) AS suffix, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '"JobEvent"'::regclass
  LOOP
    -- Jobs keep the room for HOT heartbeats (migration hot_heartbeats): each partition's own setting.
    EXECUTE format('CREATE TABLE %I PARTITION OF "AiRuntimeJob_new" %s WITH (fillfactor = 85)', 'AiRuntimeJob' || p.suffix, p.bound);
  END LOOP;
END $$;

INSERT INTO "AiRuntimeJob_new" SELECT * FROM "AiRuntimeJob";
DROP TABLE "AiRuntimeJob";
ALTER TABLE "AiRuntimeJob_new" RENAME TO "AiRuntimeJob";

ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_pkey" PRIMARY KEY ("id");
CREATE INDEX "AiRuntimeJob_idempotency_idx" ON "AiRuntimeJob"("idempotencyKey", "userId", "jobType", "targetType", "targetId") WHERE ("idempotencyKey" IS NOT NULL);
CREATE INDEX "AiRuntimeJob_inflight_input_idx" ON "AiRuntimeJob"("userId", "inputHash") WHERE (("idempotencyKey" IS NULL) AND (status = ANY (ARRAY['pending'::"JobStatus", 'locked'::"JobStatus", 'running'::"JobStatus", 'expired'::"JobStatus"])));
CREATE INDEX "AiRuntimeJob_pending_queue_idx" ON "AiRuntimeJob"("priority", "queueTurn", "createdAt", "jobType") WHERE (status = 'pending');
CREATE INDEX "AiRuntimeJob_pending_learner_idx" ON "AiRuntimeJob"("userId", "priority", "queueTurn") WHERE (status = 'pending');
CREATE INDEX "AiRuntimeJob_lease_idx" ON "AiRuntimeJob"("leaseCheckAt") WHERE (status = ANY (ARRAY['locked'::"JobStatus", 'running'::"JobStatus", 'expired'::"JobStatus"]));
CREATE INDEX "AiRuntimeJob_userId_createdAt_idx" ON "AiRuntimeJob"("userId", "createdAt");
CREATE INDEX "AiRuntimeJob_targetType_targetId_idx" ON "AiRuntimeJob"("targetType", "targetId");
CREATE INDEX "AiRuntimeJob_retriedFromJobId_idx" ON "AiRuntimeJob"("retriedFromJobId") WHERE ("retriedFromJobId" IS NOT NULL);
CREATE INDEX "AiRuntimeJob_finishedAt_idx" ON "AiRuntimeJob"("finishedAt") WHERE ("finishedAt" IS NOT NULL);
CREATE INDEX "AiRuntimeJob_createdAt_id_idx" ON "AiRuntimeJob"("createdAt", "id");
CREATE INDEX "AiRuntimeJob_status_createdAt_id_idx" ON "AiRuntimeJob"("status", "createdAt", "id");
CREATE INDEX "AiRuntimeJob_jobType_createdAt_id_idx" ON "AiRuntimeJob"("jobType", "createdAt", "id");
CREATE INDEX "AiRuntimeJob_rare_endings_idx" ON "AiRuntimeJob"("status", "jobType", "createdAt", "id") WHERE (status = ANY (ARRAY['failed'::"JobStatus", 'cancelled'::"JobStatus"]));
CREATE INDEX "AiRuntimeJob_errorCode_createdAt_idx" ON "AiRuntimeJob"("errorCode", "createdAt") WHERE ("errorCode" IS NOT NULL);
CREATE INDEX "AiRuntimeJob_params_idx" ON "AiRuntimeJob" USING GIN ("params" jsonb_path_ops);

ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_snapshotId_fkey" FOREIGN KEY ("snapshotId") REFERENCES "Snapshot"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_retriedFromJobId_fkey" FOREIGN KEY ("retriedFromJobId") REFERENCES "AiRuntimeJob"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "FlashcardMark" ADD CONSTRAINT "FlashcardMark_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "JobRejection" ADD CONSTRAINT "JobRejection_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "NextActionTick" ADD CONSTRAINT "NextActionTick_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;

DO $$
DECLARE
  p record;
  t text;
BEGIN
  FOR p IN
    SELECT substr(c.relname, length('JobEvent') + 1) AS suffix
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '"JobEvent"'::regclass
  LOOP
    FOREACH t IN ARRAY ARRAY['JobEvent', 'AiRuntimeResult'] LOOP
      EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY ("jobId") REFERENCES %I ("id") ON DELETE CASCADE ON UPDATE CASCADE',
        t || p.suffix, t || p.suffix || '_jobId_fkey', 'AiRuntimeJob' || p.suffix);
    END LOOP;
  END LOOP;
END $$;

ANALYZE "AiRuntimeJob";
