-- CreateTable
CREATE TABLE "UsageDayRollup" (
    "day" DATE NOT NULL,
    "jobType" "JobType" NOT NULL,
    "apiKeyMode" "ApiKeyMode" NOT NULL,
    "promptTokens" BIGINT NOT NULL,
    "completionTokens" BIGINT NOT NULL,
    "attempts" INTEGER NOT NULL,

    CONSTRAINT "UsageDayRollup_pkey" PRIMARY KEY ("day","jobType","apiKeyMode")
);

-- CreateTable
CREATE TABLE "UsageDayLearner" (
    "day" DATE NOT NULL,
    "userId" TEXT NOT NULL,
    "promptTokens" BIGINT NOT NULL,
    "completionTokens" BIGINT NOT NULL,
    "attempts" INTEGER NOT NULL,

    CONSTRAINT "UsageDayLearner_pkey" PRIMARY KEY ("day","userId")
);

-- CreateTable
CREATE TABLE "UsageDayClosed" (
    "day" DATE NOT NULL,
    "closedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UsageDayClosed_pkey" PRIMARY KEY ("day")
);
