-- The pending queue index carries the job type as its last key: a claim or poll for some types
-- skips the other types' pending jobs inside the index, in queue order, instead of reading each
-- one's row (docs/performance.md, "A claim for one type behind another type's backlog").

-- DropIndex
DROP INDEX "AiRuntimeJob_pending_queue_idx";

-- CreateIndex
CREATE INDEX "AiRuntimeJob_pending_queue_idx" ON "AiRuntimeJob"("priority", "queueTurn", "createdAt", "jobType") WHERE (status = 'pending');
