-- CreateTable
CREATE TABLE "QuotaUsage" (
    "userId" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "used" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "QuotaUsage_pkey" PRIMARY KEY ("userId","metric","period","windowStart")
);

-- CreateTable
CREATE TABLE "QuotaLimit" (
    "userId" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "allowed" INTEGER NOT NULL,
    "updatedBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "QuotaLimit_pkey" PRIMARY KEY ("userId","metric","period")
);

-- CreateIndex
CREATE INDEX "QuotaUsage_windowStart_idx" ON "QuotaUsage"("windowStart");
