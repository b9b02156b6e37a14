-- Time partitions of events and results (issue 26, item 4): both are partitioned by RANGE of the
-- job id. Job ids are cuids, "c" then the creation time in milliseconds in base 36 (8 digits until
-- 2059), so a range of ids is a range of creation times, and a job's events and result sit in the
-- partition of its creation's span. Retention drops a span's events and results (DROP TABLE) once
-- every job of the span has ended before the cutoff, then deletes the job rows, whose cascade then
-- finds nothing (server/jobs/partitions.ts). The job table itself stays one table: partitioned, it
-- cost 2.5 times the PostgreSQL CPU per job on the Runtime's path (docs/performance.md).
--
-- Layout made here: "<table>_before" holds every id below this migration's time (all events and
-- results so far), "<table>_default" anything no range holds (ids that are not cuids). The app makes
-- the ranges from now on, ahead of time (JOB_PARTITION_DAYS wide), at every migration run and daily.
-- Rows are copied once.
--
-- A unique index of a partitioned table must contain the partition key: the result's primary key
-- becomes (id, jobId), jobId stays unique, and a result's idempotency key (which starts with its
-- job id) is checked per job (server/jobs/results.ts).

ALTER TABLE "AiRuntimeResult" DROP CONSTRAINT "AiRuntimeResult_jobId_fkey";
ALTER TABLE "JobEvent" DROP CONSTRAINT "JobEvent_jobId_fkey";

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
  FOREACH t IN ARRAY ARRAY['AiRuntimeResult', 'JobEvent'] LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (MINVALUE) TO (%L)', t || '_before', t || '_new', bound);
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', t || '_default', t || '_new');
  END LOOP;
END $$;

INSERT INTO "AiRuntimeResult_new" SELECT * FROM "AiRuntimeResult";
INSERT INTO "JobEvent_new" SELECT * FROM "JobEvent";

ALTER SEQUENCE "JobEvent_id_seq" OWNED BY NONE;
DROP TABLE "JobEvent";
DROP TABLE "AiRuntimeResult";
ALTER TABLE "AiRuntimeResult_new" RENAME TO "AiRuntimeResult";
ALTER TABLE "JobEvent_new" RENAME TO "JobEvent";
ALTER SEQUENCE "JobEvent_id_seq" OWNED BY "JobEvent"."id";

ALTER TABLE "AiRuntimeResult" ADD CONSTRAINT "AiRuntimeResult_pkey" PRIMARY KEY ("id", "jobId");
CREATE UNIQUE INDEX "AiRuntimeResult_jobId_key" ON "AiRuntimeResult"("jobId");
CREATE INDEX "AiRuntimeResult_output_idx" ON "AiRuntimeResult" USING GIN ("output" jsonb_path_ops);

ALTER TABLE "JobEvent" ADD CONSTRAINT "JobEvent_pkey" PRIMARY KEY ("id", "jobId");
CREATE INDEX "JobEvent_jobId_createdAt_idx" ON "JobEvent"("jobId", "createdAt");
CREATE INDEX "JobEvent_createdAt_idx" ON "JobEvent"("createdAt");
CREATE INDEX "JobEvent_actorId_createdAt_idx" ON "JobEvent"("actorId", "createdAt");

ALTER TABLE "AiRuntimeResult" ADD CONSTRAINT "AiRuntimeResult_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "JobEvent" ADD CONSTRAINT "JobEvent_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ANALYZE "AiRuntimeResult";
ANALYZE "JobEvent";
