-- CreateEnum
CREATE TYPE "ReviewDeckDecision" AS ENUM ('added', 'dismissed');

-- AlterTable
ALTER TABLE "ReviewCard" ADD COLUMN     "buriedUntil" TIMESTAMP(3),
ADD COLUMN     "suspended" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "reviewMaxPerDay" INTEGER NOT NULL DEFAULT 200,
ADD COLUMN     "reviewNewPerDay" INTEGER NOT NULL DEFAULT 20;

-- CreateTable
CREATE TABLE "ReviewDeck" (
    "userId" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "decision" "ReviewDeckDecision" NOT NULL,
    "added" INTEGER NOT NULL DEFAULT 0,
    "updated" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "decidedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ReviewDeck_pkey" PRIMARY KEY ("userId","jobId")
);

-- AddForeignKey
ALTER TABLE "ReviewDeck" ADD CONSTRAINT "ReviewDeck_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Decks whose cards joined the schedule before the learner was asked count as added.
INSERT INTO "ReviewDeck" ("userId", "jobId", "decision", "added")
SELECT "userId", "sourceJobId", 'added', count(*)::int FROM "ReviewCard"
WHERE kind = 'flashcard' AND "sourceJobId" IS NOT NULL
GROUP BY "userId", "sourceJobId";
