-- AlterTable
ALTER TABLE "RuntimeApiKey" ADD COLUMN     "jobTypes" "JobType"[] DEFAULT ARRAY[]::"JobType"[],
ADD COLUMN     "mayReceiveLearnerKeys" BOOLEAN NOT NULL DEFAULT false;
