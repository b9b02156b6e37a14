-- AlterTable
ALTER TABLE "JobUsage" ADD COLUMN     "cacheHitTokens" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "cacheMissTokens" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "UsageDayLearner" ADD COLUMN     "cacheHitTokens" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "UsageDayRollup" ADD COLUMN     "cacheHitTokens" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "UsageHourLearner" ADD COLUMN     "cacheHitTokens" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "UsageHourRollup" ADD COLUMN     "cacheHitTokens" BIGINT NOT NULL DEFAULT 0;

