-- DropIndex
DROP INDEX "AiRuntimeJob_pending_queue_idx";

-- AlterTable
ALTER TABLE "AiRuntimeJob" ADD COLUMN     "queueTurn" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "AiRuntimeJob_pending_queue_idx" ON "AiRuntimeJob"("priority", "queueTurn", "createdAt") WHERE (status = 'pending');

-- CreateIndex
CREATE INDEX "AiRuntimeJob_pending_learner_idx" ON "AiRuntimeJob"("userId", "priority", "queueTurn") WHERE (status = 'pending');
