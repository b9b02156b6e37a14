-- The lost-lease search reads held leases by leaseCheckAt (a lower bound of lockUntil that a
-- heartbeat on time leaves unchanged) instead of every held lease by lockedAt: its cost follows
-- the leases near their end, not the number of jobs running (docs/performance.md).
ALTER TABLE "AiRuntimeJob" ADD COLUMN "leaseCheckAt" TIMESTAMP(3);

-- Leases held now: their check time is their end.
UPDATE "AiRuntimeJob" SET "leaseCheckAt" = COALESCE("lockUntil", "lockedAt", CURRENT_TIMESTAMP)
  WHERE status IN ('locked', 'running', 'expired');

DROP INDEX "AiRuntimeJob_lease_idx";

CREATE INDEX "AiRuntimeJob_lease_idx" ON "AiRuntimeJob"("leaseCheckAt") WHERE (status = ANY (ARRAY['locked'::"JobStatus", 'running'::"JobStatus", 'expired'::"JobStatus"]));
