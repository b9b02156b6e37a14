-- The result path no longer writes the idempotency key string (a result's attempt number and output
-- hash say the same). The column stays, nullable, so that instances of the previous release still
-- running during a rolling deploy keep storing and reading it; a catalog change only, no rewrite.
ALTER TABLE "AiRuntimeResult" ALTER COLUMN "resultIdempotencyKey" DROP NOT NULL;
