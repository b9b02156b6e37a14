-- CreateTable
CREATE TABLE "JobUsage" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "attemptNo" INTEGER NOT NULL,
    "userId" TEXT NOT NULL,
    "jobType" "JobType" NOT NULL,
    "apiKeyMode" "ApiKeyMode" NOT NULL,
    "provider" TEXT,
    "model" TEXT,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "durationMs" INTEGER NOT NULL DEFAULT 0,
    "outcome" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "JobUsage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "JobUsage_createdAt_idx" ON "JobUsage"("createdAt");

-- CreateIndex
CREATE INDEX "JobUsage_jobType_createdAt_idx" ON "JobUsage"("jobType", "createdAt");

-- CreateIndex
CREATE INDEX "JobUsage_userId_createdAt_idx" ON "JobUsage"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "JobUsage_jobId_attemptNo_key" ON "JobUsage"("jobId", "attemptNo");
