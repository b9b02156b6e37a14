-- AlterTable
ALTER TABLE "AiRuntimeJob" ADD COLUMN     "locale" TEXT NOT NULL DEFAULT 'en';
