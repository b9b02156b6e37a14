-- AlterTable
ALTER TABLE "AiRuntimeJob" ADD COLUMN     "lockedByKeyId" TEXT;
