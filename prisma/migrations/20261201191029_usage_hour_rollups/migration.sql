-- CreateTable
CREATE TABLE "UsageHourRollup" (
    "hour" TIMESTAMP(3) NOT NULL,
    "jobType" "JobType" NOT NULL,
    "apiKeyMode" "ApiKeyMode" NOT NULL,
    "promptTokens" BIGINT NOT NULL,
    "completionTokens" BIGINT NOT NULL,
    "attempts" INTEGER NOT NULL,

    CONSTRAINT "UsageHourRollup_pkey" PRIMARY KEY ("hour","jobType","apiKeyMode")
);

-- CreateTable
CREATE TABLE "UsageHourLearner" (
    "hour" TIMESTAMP(3) NOT NULL,
    "userId" TEXT NOT NULL,
    "promptTokens" BIGINT NOT NULL,
    "completionTokens" BIGINT NOT NULL,
    "attempts" INTEGER NOT NULL,

    CONSTRAINT "UsageHourLearner_pkey" PRIMARY KEY ("hour","userId")
);

-- CreateTable
CREATE TABLE "UsageHourClosed" (
    "hour" TIMESTAMP(3) NOT NULL,
    "closedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UsageHourClosed_pkey" PRIMARY KEY ("hour")
);
