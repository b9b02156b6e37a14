-- CreateTable
CREATE TABLE "AdminAuditLog" (
    "id" BIGSERIAL NOT NULL,
    "actorId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "scope" JSONB NOT NULL,
    "count" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AdminAuditLog_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AdminAuditLog_createdAt_idx" ON "AdminAuditLog"("createdAt");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_createdAt_id_idx" ON "AiRuntimeJob"("createdAt", "id");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_status_createdAt_id_idx" ON "AiRuntimeJob"("status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_jobType_createdAt_id_idx" ON "AiRuntimeJob"("jobType", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_errorCode_createdAt_idx" ON "AiRuntimeJob"("errorCode", "createdAt");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_idempotencyKey_idx" ON "AiRuntimeJob"("idempotencyKey");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_params_idx" ON "AiRuntimeJob" USING GIN ("params" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "AiRuntimeResult_output_idx" ON "AiRuntimeResult" USING GIN ("output" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "JobEvent_actorId_createdAt_idx" ON "JobEvent"("actorId", "createdAt");
