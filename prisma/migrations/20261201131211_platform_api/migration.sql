-- AlterEnum
ALTER TYPE "ActorType" ADD VALUE 'platform';

-- AlterTable
ALTER TABLE "KnowledgePoint" ADD COLUMN     "externalId" TEXT;

-- AlterTable
ALTER TABLE "Material" ADD COLUMN     "externalId" TEXT;

-- AlterTable
ALTER TABLE "QuizAttempt" ADD COLUMN     "externalId" TEXT;

-- AlterTable
ALTER TABLE "StudySession" ADD COLUMN     "externalId" TEXT;

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "externalId" TEXT;

-- CreateTable
CREATE TABLE "ServiceKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "scopes" TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ServiceKey_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ServiceKey_hash_key" ON "ServiceKey"("hash");

-- CreateIndex
CREATE UNIQUE INDEX "KnowledgePoint_userId_externalId_key" ON "KnowledgePoint"("userId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "Material_userId_externalId_key" ON "Material"("userId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "QuizAttempt_userId_externalId_key" ON "QuizAttempt"("userId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "StudySession_userId_externalId_key" ON "StudySession"("userId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "User_externalId_key" ON "User"("externalId");
