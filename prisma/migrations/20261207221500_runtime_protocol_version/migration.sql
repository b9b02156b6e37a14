-- The Runtime protocol version an instance speaks (docs/contract.md#versions-and-the-compatibility-promise).
ALTER TABLE "RuntimeInstance" ADD COLUMN "protocolVersion" TEXT;
