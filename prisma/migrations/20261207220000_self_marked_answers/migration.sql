-- A free answer is marked by the learner herself: pending until she does, then a QuizAttempt marked so.
ALTER TABLE "QuizAttempt" ADD COLUMN "selfMarked" BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE "PendingAnswer" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "knowledgePointId" TEXT NOT NULL,
    "sourceJobId" TEXT NOT NULL,
    "itemIndex" INTEGER NOT NULL,
    "question" TEXT NOT NULL,
    "response" TEXT NOT NULL,
    "answeredAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PendingAnswer_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "PendingAnswer_userId_sourceJobId_itemIndex_answeredAt_key" ON "PendingAnswer"("userId", "sourceJobId", "itemIndex", "answeredAt");
CREATE INDEX "PendingAnswer_userId_answeredAt_idx" ON "PendingAnswer"("userId", "answeredAt");
CREATE INDEX "PendingAnswer_knowledgePointId_idx" ON "PendingAnswer"("knowledgePointId");

ALTER TABLE "PendingAnswer" ADD CONSTRAINT "PendingAnswer_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "PendingAnswer" ADD CONSTRAINT "PendingAnswer_knowledgePointId_fkey" FOREIGN KEY ("knowledgePointId") REFERENCES "KnowledgePoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;
