-- The queue's state leaves the job row's indexes (docs/postgres-per-job.md). A job in flight
-- (pending, locked, running, expired) has one narrow JobQueue row: the claim order, the learner's
-- fair turn, the lease check time and the live statuses the console filters by are indexed there.
-- The job row keeps every column and stays what every read reads, but no index of it names a
-- column the claim, a heartbeat or the result changes, so those updates are HOT: no index entry.
-- On a live instance the previous release keeps writing jobs while this runs. Every lock this
-- script needs on the job table (and so on its partitions) is taken here, at once and the strongest
-- (the index drops below need ACCESS EXCLUSIVE): a script that held a weaker one (the triggers'
-- SHARE ROW EXCLUSIVE) and then asked for more would deadlock with a writer whose transaction had
-- read the table before the script began and writes after (a creation: its key's lookup, then
-- the insert). Taken first, the writer's write goes ahead of the waiting request, its transaction
-- ends, and every later read and write of the job table waits for this script's commit.
LOCK TABLE "AiRuntimeJob" IN ACCESS EXCLUSIVE MODE;

CREATE TABLE "JobQueue" (
    "jobId" TEXT NOT NULL,
    "status" "JobStatus" NOT NULL,
    "priority" INTEGER NOT NULL,
    "queueTurn" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "jobType" "JobType" NOT NULL,
    "userId" TEXT NOT NULL,
    "leaseCheckAt" TIMESTAMP(3),

    CONSTRAINT "JobQueue_pkey" PRIMARY KEY ("jobId")
);

CREATE INDEX "JobQueue_pending_idx" ON "JobQueue"("priority", "queueTurn", "createdAt", "jobType") WHERE (status = 'pending'::"JobStatus");
CREATE INDEX "JobQueue_pending_learner_idx" ON "JobQueue"("userId", "priority", "queueTurn") WHERE (status = 'pending'::"JobStatus");
CREATE INDEX "JobQueue_lease_idx" ON "JobQueue"("leaseCheckAt") WHERE (status = ANY (ARRAY['locked'::"JobStatus", 'running'::"JobStatus", 'expired'::"JobStatus"]));
CREATE INDEX "JobQueue_status_createdAt_jobId_idx" ON "JobQueue"("status", "createdAt", "jobId");

-- Every writer of a job row keeps its queue row. The state machine does it in its own statement,
-- set-based, and moves "queueSeq" so the trigger leaves its rows alone (a row trigger costs about
-- as much as the update itself); any other writer (an instance of the previous release still
-- running during the rollout, the admin's priority change, scripts, tests) leaves "queueSeq" as it
-- was, and the trigger keeps the queue row. Row triggers on the partitioned table, so every span's
-- partition (and those made later) has them.
ALTER TABLE "AiRuntimeJob" ADD COLUMN "queueSeq" INTEGER NOT NULL DEFAULT 0;

CREATE FUNCTION "job_queue_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM "JobQueue" WHERE "jobId" = OLD.id;
  ELSIF NEW.status IN ('pending', 'locked', 'running', 'expired') THEN
    UPDATE "JobQueue" SET status = NEW.status, priority = NEW.priority, "queueTurn" = NEW."queueTurn",
      "leaseCheckAt" = NEW."leaseCheckAt"
    WHERE "jobId" = NEW.id;
    IF NOT FOUND THEN
      INSERT INTO "JobQueue" ("jobId", status, priority, "queueTurn", "createdAt", "jobType", "userId", "leaseCheckAt")
      VALUES (NEW.id, NEW.status, NEW.priority, NEW."queueTurn", NEW."createdAt", NEW."jobType", NEW."userId", NEW."leaseCheckAt")
      ON CONFLICT ("jobId") DO NOTHING;
    END IF;
  ELSE
    DELETE FROM "JobQueue" WHERE "jobId" = NEW.id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "AiRuntimeJob_queue_insert" AFTER INSERT ON "AiRuntimeJob" FOR EACH ROW
  WHEN (NEW.status IN ('pending', 'locked', 'running', 'expired')) EXECUTE FUNCTION "job_queue_sync"();
CREATE TRIGGER "AiRuntimeJob_queue_update" AFTER UPDATE OF status, priority, "queueTurn", "leaseCheckAt" ON "AiRuntimeJob" FOR EACH ROW
  WHEN (OLD."queueSeq" = NEW."queueSeq" AND (OLD.status IS DISTINCT FROM NEW.status OR OLD.priority IS DISTINCT FROM NEW.priority
    OR OLD."queueTurn" IS DISTINCT FROM NEW."queueTurn" OR OLD."leaseCheckAt" IS DISTINCT FROM NEW."leaseCheckAt"))
  EXECUTE FUNCTION "job_queue_sync"();
CREATE TRIGGER "AiRuntimeJob_queue_delete" AFTER DELETE ON "AiRuntimeJob" FOR EACH ROW
  WHEN (OLD.status IN ('pending', 'locked', 'running', 'expired')) EXECUTE FUNCTION "job_queue_sync"();

-- The jobs in flight now, read through the old indexes while they still exist; writers wait the
-- whole script out (the lock above), so none changes a job between its read and its queue row.
INSERT INTO "JobQueue" ("jobId", status, priority, "queueTurn", "createdAt", "jobType", "userId", "leaseCheckAt")
SELECT id, status, priority, "queueTurn", "createdAt", "jobType", "userId", "leaseCheckAt" FROM "AiRuntimeJob"
WHERE status IN ('pending', 'locked', 'running', 'expired')
ON CONFLICT ("jobId") DO NOTHING;

-- The job row's indexes that named a column the hot path changes (status, the lease, finishedAt).
DROP INDEX "AiRuntimeJob_pending_queue_idx", "AiRuntimeJob_pending_learner_idx", "AiRuntimeJob_lease_idx",
  "AiRuntimeJob_inflight_input_idx", "AiRuntimeJob_status_createdAt_id_idx", "AiRuntimeJob_rare_endings_idx",
  "AiRuntimeJob_finishedAt_idx";

-- In-flight de-duplication by input: every keyless job of the learner and input, its status read
-- from the row (a learner has few jobs of one input).
CREATE INDEX "AiRuntimeJob_input_idx" ON "AiRuntimeJob"("userId", "inputHash") WHERE ("idempotencyKey" IS NULL);
-- The console's failed and cancelled jobs (every such ending sets errorCode), alone or with a type.
CREATE INDEX "AiRuntimeJob_errors_createdAt_id_idx" ON "AiRuntimeJob"("createdAt", "id") WHERE ("errorCode" IS NOT NULL);
CREATE INDEX "AiRuntimeJob_errors_jobType_createdAt_id_idx" ON "AiRuntimeJob"("jobType", "createdAt", "id") WHERE ("errorCode" IS NOT NULL);

-- Room on each page for a row's next versions (claim, heartbeats, result), so they stay HOT.
DO $$
DECLARE p record;
BEGIN
  FOR p IN SELECT inhrelid::regclass AS part FROM pg_inherits WHERE inhparent = '"AiRuntimeJob"'::regclass LOOP
    EXECUTE format('ALTER TABLE %s SET (fillfactor = 70)', p.part);
  END LOOP;
END $$;
