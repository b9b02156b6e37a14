-- CreateTable
CREATE TABLE "ConsoleRollupState" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "eventId" BIGINT NOT NULL DEFAULT 0,
    "pendingEventId" BIGINT,
    "pendingXmax" BIGINT,
    "countedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConsoleRollupState_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "JobCountRollup" (
    "status" "JobStatus" NOT NULL,
    "jobType" "JobType" NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "JobCountRollup_pkey" PRIMARY KEY ("status","jobType")
);

-- CreateTable
CREATE TABLE "JobTimeRollup" (
    "width" INTEGER NOT NULL,
    "start" TIMESTAMP(3) NOT NULL,
    "kind" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "JobTimeRollup_pkey" PRIMARY KEY ("width","start","kind","idx")
);
