-- CreateTable
CREATE TABLE "JobRejection" (
    "id" BIGSERIAL NOT NULL,
    "jobId" TEXT NOT NULL,
    "attemptNo" INTEGER NOT NULL,
    "output" TEXT NOT NULL,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "outputBytes" INTEGER NOT NULL,
    "violations" JSONB NOT NULL,
    "rules" TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "JobRejection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NextActionTick" (
    "userId" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "actionIndex" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "NextActionTick_pkey" PRIMARY KEY ("userId","jobId","actionIndex")
);

-- CreateTable
CREATE TABLE "BulkRun" (
    "id" TEXT NOT NULL,
    "actorId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "scope" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "total" INTEGER NOT NULL,
    "processed" INTEGER NOT NULL DEFAULT 0,
    "affected" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "cursorCreatedAt" TIMESTAMP(3),
    "cursorId" TEXT,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "message" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "BulkRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "JobRejection_rules_idx" ON "JobRejection" USING GIN ("rules");

-- CreateIndex
CREATE UNIQUE INDEX "JobRejection_jobId_attemptNo_key" ON "JobRejection"("jobId", "attemptNo");

-- CreateIndex
CREATE INDEX "NextActionTick_jobId_idx" ON "NextActionTick"("jobId");

-- CreateIndex
CREATE INDEX "BulkRun_status_createdAt_idx" ON "BulkRun"("status", "createdAt");

-- CreateIndex
CREATE INDEX "BulkRun_createdAt_idx" ON "BulkRun"("createdAt");

-- AddForeignKey
ALTER TABLE "JobRejection" ADD CONSTRAINT "JobRejection_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NextActionTick" ADD CONSTRAINT "NextActionTick_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NextActionTick" ADD CONSTRAINT "NextActionTick_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
