-- DropTable
DROP TABLE "SignInThrottle";

-- CreateTable
CREATE TABLE "SignInCounter" (
    "key" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SignInCounter_pkey" PRIMARY KEY ("key")
);
