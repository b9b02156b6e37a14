-- AlterTable
ALTER TABLE "StudySession" ADD COLUMN     "sourceJobId" TEXT;
