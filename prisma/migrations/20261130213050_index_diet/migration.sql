-- DropIndex
DROP INDEX "AiRuntimeJob_errorCode_createdAt_idx";

-- DropIndex
DROP INDEX "AiRuntimeJob_finishedAt_idx";

-- DropIndex
DROP INDEX "AiRuntimeJob_idempotencyKey_idx";

-- DropIndex
DROP INDEX "AiRuntimeJob_retriedFromJobId_idx";

-- DropIndex
DROP INDEX "AiRuntimeJob_status_jobType_idx";

-- DropIndex
DROP INDEX "AiRuntimeJob_userId_jobType_targetType_targetId_idempotency_key";

-- CreateIndex
CREATE INDEX "AiRuntimeJob_retriedFromJobId_idx" ON "AiRuntimeJob"("retriedFromJobId") WHERE ("retriedFromJobId" IS NOT NULL);

-- CreateIndex
CREATE INDEX "AiRuntimeJob_finishedAt_idx" ON "AiRuntimeJob"("finishedAt") WHERE ("finishedAt" IS NOT NULL);

-- CreateIndex
CREATE INDEX "AiRuntimeJob_errorCode_createdAt_idx" ON "AiRuntimeJob"("errorCode", "createdAt") WHERE ("errorCode" IS NOT NULL);

-- CreateIndex
CREATE UNIQUE INDEX "AiRuntimeJob_idempotency_key" ON "AiRuntimeJob"("idempotencyKey", "userId", "jobType", "targetType", "targetId") WHERE ("idempotencyKey" IS NOT NULL);
