-- A card's identity apart from its text, her edits, and the generated cards she deleted.
ALTER TABLE "ReviewCard" ADD COLUMN "sourceKey" TEXT;
ALTER TABLE "ReviewCard" ADD COLUMN "editedAt" TIMESTAMP(3);
CREATE UNIQUE INDEX "ReviewCard_userId_sourceKey_key" ON "ReviewCard"("userId", "sourceKey");

CREATE TABLE "ReviewCardTombstone" (
    "userId" TEXT NOT NULL,
    "sourceKey" TEXT NOT NULL,
    "deletedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ReviewCardTombstone_pkey" PRIMARY KEY ("userId","sourceKey")
);

ALTER TABLE "ReviewCardTombstone" ADD CONSTRAINT "ReviewCardTombstone_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
