-- AlterTable
ALTER TABLE "BulkRun" ADD COLUMN     "paused" BOOLEAN NOT NULL DEFAULT false;
