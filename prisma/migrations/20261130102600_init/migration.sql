-- CreateEnum
CREATE TYPE "Role" AS ENUM ('learner', 'admin');

-- CreateEnum
CREATE TYPE "JobType" AS ENUM ('learning_state_analysis', 'weak_point_analysis', 'next_action_planning', 'quiz_generation', 'flashcard_generation');

-- CreateEnum
CREATE TYPE "TargetType" AS ENUM ('user', 'material', 'knowledge_point');

-- CreateEnum
CREATE TYPE "JobStatus" AS ENUM ('pending', 'locked', 'running', 'succeeded', 'failed', 'cancelled', 'expired');

-- CreateEnum
CREATE TYPE "ApiKeyMode" AS ENUM ('platform_key', 'user_deepseek_key');

-- CreateEnum
CREATE TYPE "ActorType" AS ENUM ('learner', 'admin', 'runtime', 'system', 'workflow');

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" "Role" NOT NULL DEFAULT 'learner',
    "passwordHash" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AiConsent" (
    "userId" TEXT NOT NULL,
    "granted" BOOLEAN NOT NULL DEFAULT false,
    "apiKeyMode" "ApiKeyMode" NOT NULL DEFAULT 'platform_key',
    "grantedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AiConsent_pkey" PRIMARY KEY ("userId")
);

-- CreateTable
CREATE TABLE "UserCredential" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "provider" TEXT NOT NULL DEFAULT 'deepseek',
    "ciphertext" TEXT NOT NULL,
    "last4" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "UserCredential_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Material" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Material_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KnowledgePoint" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "materialId" TEXT,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KnowledgePoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuizAttempt" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "knowledgePointId" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "correct" BOOLEAN NOT NULL,
    "answeredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sourceJobId" TEXT,

    CONSTRAINT "QuizAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StudySession" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "materialId" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "minutes" INTEGER NOT NULL,

    CONSTRAINT "StudySession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Snapshot" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "targetType" "TargetType" NOT NULL,
    "targetId" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "content" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Snapshot_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AiRuntimeJob" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "jobType" "JobType" NOT NULL,
    "targetType" "TargetType" NOT NULL,
    "targetId" TEXT NOT NULL,
    "snapshotId" TEXT,
    "status" "JobStatus" NOT NULL DEFAULT 'pending',
    "priority" INTEGER NOT NULL DEFAULT 0,
    "idempotencyKey" TEXT,
    "apiKeyMode" "ApiKeyMode" NOT NULL DEFAULT 'platform_key',
    "credentialId" TEXT,
    "modelProvider" TEXT NOT NULL DEFAULT 'deepseek',
    "modelName" TEXT NOT NULL DEFAULT 'deepseek-chat',
    "promptVersion" TEXT,
    "outputSchemaVersion" TEXT DEFAULT 'v1',
    "attemptNo" INTEGER NOT NULL DEFAULT 0,
    "retriedFromJobId" TEXT,
    "params" JSONB NOT NULL DEFAULT '{}',
    "inputHash" TEXT NOT NULL,
    "runAfter" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "cancelRequestedAt" TIMESTAMP(3),
    "stage" TEXT,
    "progress" INTEGER NOT NULL DEFAULT 0,
    "progressMessage" TEXT,
    "lockedBy" TEXT,
    "lockedAt" TIMESTAMP(3),
    "lockUntil" TIMESTAMP(3),
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "retryCount" INTEGER NOT NULL DEFAULT 0,
    "maxRetryCount" INTEGER NOT NULL DEFAULT 3,
    "timeoutSeconds" INTEGER NOT NULL DEFAULT 120,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AiRuntimeJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AiRuntimeResult" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "attemptNo" INTEGER NOT NULL,
    "output" JSONB NOT NULL,
    "outputHash" TEXT NOT NULL,
    "resultIdempotencyKey" TEXT NOT NULL,
    "outputSchemaVersion" TEXT NOT NULL,
    "promptVersion" TEXT,
    "modelProvider" TEXT,
    "modelName" TEXT,
    "usage" JSONB,
    "latencyMs" INTEGER,
    "degraded" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AiRuntimeResult_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "JobEvent" (
    "id" BIGSERIAL NOT NULL,
    "jobId" TEXT NOT NULL,
    "fromStatus" "JobStatus",
    "toStatus" "JobStatus" NOT NULL,
    "actorType" "ActorType" NOT NULL,
    "actorId" TEXT,
    "attemptNo" INTEGER NOT NULL,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "JobEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RuntimeInstance" (
    "id" TEXT NOT NULL,
    "capabilities" TEXT[],
    "version" TEXT,
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RuntimeInstance_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RuntimeApiKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "RuntimeApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "UserCredential_userId_provider_idx" ON "UserCredential"("userId", "provider");

-- CreateIndex
CREATE INDEX "Material_userId_idx" ON "Material"("userId");

-- CreateIndex
CREATE INDEX "KnowledgePoint_userId_idx" ON "KnowledgePoint"("userId");

-- CreateIndex
CREATE INDEX "KnowledgePoint_materialId_idx" ON "KnowledgePoint"("materialId");

-- CreateIndex
CREATE INDEX "QuizAttempt_userId_answeredAt_idx" ON "QuizAttempt"("userId", "answeredAt");

-- CreateIndex
CREATE INDEX "QuizAttempt_knowledgePointId_idx" ON "QuizAttempt"("knowledgePointId");

-- CreateIndex
CREATE INDEX "StudySession_userId_startedAt_idx" ON "StudySession"("userId", "startedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Snapshot_userId_contentHash_key" ON "Snapshot"("userId", "contentHash");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_pending_queue_idx" ON "AiRuntimeJob"("priority", "createdAt") WHERE (status = 'pending');

-- CreateIndex
CREATE INDEX "AiRuntimeJob_lease_idx" ON "AiRuntimeJob"("lockUntil") WHERE (status = ANY (ARRAY['locked'::"JobStatus", 'running'::"JobStatus", 'expired'::"JobStatus"]));

-- CreateIndex
CREATE INDEX "AiRuntimeJob_userId_createdAt_idx" ON "AiRuntimeJob"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_status_jobType_idx" ON "AiRuntimeJob"("status", "jobType");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_targetType_targetId_idx" ON "AiRuntimeJob"("targetType", "targetId");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_retriedFromJobId_idx" ON "AiRuntimeJob"("retriedFromJobId");

-- CreateIndex
CREATE INDEX "AiRuntimeJob_finishedAt_idx" ON "AiRuntimeJob"("finishedAt");

-- CreateIndex
CREATE UNIQUE INDEX "AiRuntimeJob_userId_jobType_targetType_targetId_idempotency_key" ON "AiRuntimeJob"("userId", "jobType", "targetType", "targetId", "idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "AiRuntimeJob_inflight_input_key" ON "AiRuntimeJob"("userId", "inputHash") WHERE (("idempotencyKey" IS NULL) AND (status = ANY (ARRAY['pending'::"JobStatus", 'locked'::"JobStatus", 'running'::"JobStatus", 'expired'::"JobStatus"])));

-- CreateIndex
CREATE UNIQUE INDEX "AiRuntimeResult_jobId_key" ON "AiRuntimeResult"("jobId");

-- CreateIndex
CREATE UNIQUE INDEX "AiRuntimeResult_resultIdempotencyKey_key" ON "AiRuntimeResult"("resultIdempotencyKey");

-- CreateIndex
CREATE INDEX "JobEvent_jobId_createdAt_idx" ON "JobEvent"("jobId", "createdAt");

-- CreateIndex
CREATE INDEX "JobEvent_createdAt_idx" ON "JobEvent"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "RuntimeApiKey_hash_key" ON "RuntimeApiKey"("hash");

-- AddForeignKey
ALTER TABLE "AiConsent" ADD CONSTRAINT "AiConsent_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserCredential" ADD CONSTRAINT "UserCredential_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Material" ADD CONSTRAINT "Material_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KnowledgePoint" ADD CONSTRAINT "KnowledgePoint_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KnowledgePoint" ADD CONSTRAINT "KnowledgePoint_materialId_fkey" FOREIGN KEY ("materialId") REFERENCES "Material"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuizAttempt" ADD CONSTRAINT "QuizAttempt_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuizAttempt" ADD CONSTRAINT "QuizAttempt_knowledgePointId_fkey" FOREIGN KEY ("knowledgePointId") REFERENCES "KnowledgePoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "StudySession" ADD CONSTRAINT "StudySession_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Snapshot" ADD CONSTRAINT "Snapshot_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_snapshotId_fkey" FOREIGN KEY ("snapshotId") REFERENCES "Snapshot"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AiRuntimeJob" ADD CONSTRAINT "AiRuntimeJob_retriedFromJobId_fkey" FOREIGN KEY ("retriedFromJobId") REFERENCES "AiRuntimeJob"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AiRuntimeResult" ADD CONSTRAINT "AiRuntimeResult_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "JobEvent" ADD CONSTRAINT "JobEvent_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
