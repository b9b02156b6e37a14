-- The Runtimes page's "last 24 h" per instance from hourly rollups (issue 26, item 3), folded with
-- the other console rollups. Backfill: the events already folded (id up to the watermark) of the
-- last 25 hours. Later events are folded by the rollup task.
CREATE TABLE "RuntimeHourRollup" (
    "actorId" TEXT NOT NULL,
    "start" TIMESTAMP(3) NOT NULL,
    "succeeded" BIGINT NOT NULL,
    "failed" BIGINT NOT NULL,

    CONSTRAINT "RuntimeHourRollup_pkey" PRIMARY KEY ("actorId","start")
);

INSERT INTO "RuntimeHourRollup" ("actorId", start, succeeded, failed)
SELECT "actorId", date_trunc('hour', "createdAt"),
  count(*) FILTER (WHERE "toStatus" = 'succeeded'),
  count(*) FILTER (WHERE "errorCode" IS NOT NULL AND "errorCode" <> 'CANCELLED' AND "toStatus" IN ('pending', 'failed'))
FROM "JobEvent"
WHERE "actorType" = 'runtime' AND "actorId" IS NOT NULL AND "createdAt" >= now() - interval '25 hours'
  AND id <= coalesce((SELECT "eventId" FROM "ConsoleRollupState" WHERE id = 1), 0)
GROUP BY 1, 2;
