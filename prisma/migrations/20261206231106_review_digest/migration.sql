-- AlterTable
ALTER TABLE "User" ADD COLUMN     "digestHour" INTEGER NOT NULL DEFAULT 8,
ADD COLUMN     "digestOptIn" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "timeZone" TEXT;

-- CreateTable
CREATE TABLE "DigestSend" (
    "userId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "sentAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DigestSend_pkey" PRIMARY KEY ("userId","day")
);

-- CreateIndex
CREATE INDEX "DigestSend_status_updatedAt_idx" ON "DigestSend"("status", "updatedAt");

-- AddForeignKey
ALTER TABLE "DigestSend" ADD CONSTRAINT "DigestSend_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
