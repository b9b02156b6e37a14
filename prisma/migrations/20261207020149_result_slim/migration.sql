-- AlterTable
ALTER TABLE "AiRuntimeResult" DROP COLUMN "resultIdempotencyKey";

