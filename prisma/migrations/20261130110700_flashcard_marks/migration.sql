-- CreateTable
CREATE TABLE "FlashcardMark" (
    "jobId" TEXT NOT NULL,
    "cardIndex" INTEGER NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FlashcardMark_pkey" PRIMARY KEY ("jobId","cardIndex")
);

-- CreateIndex
CREATE INDEX "FlashcardMark_userId_idx" ON "FlashcardMark"("userId");

-- AddForeignKey
ALTER TABLE "FlashcardMark" ADD CONSTRAINT "FlashcardMark_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "AiRuntimeJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FlashcardMark" ADD CONSTRAINT "FlashcardMark_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
