-- DropIndex
DROP INDEX "AiRuntimeJob_lease_idx";

-- CreateIndex
CREATE INDEX "AiRuntimeJob_lease_idx" ON "AiRuntimeJob"("lockedAt") WHERE (status = ANY (ARRAY['locked'::"JobStatus", 'running'::"JobStatus", 'expired'::"JobStatus"]));

-- Room on each page for a new row version, so that a heartbeat's update (no indexed column changes)
-- is HOT: one heap record instead of a heap record plus an entry in every index. Not modelled by
-- Prisma (storage parameter), so the schema diff does not see it. Applies to pages written from now on.
ALTER TABLE "AiRuntimeJob" SET (fillfactor = 85);
