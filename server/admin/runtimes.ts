import { getDb } from "../db";
import { now } from "../clock";
import { FAILED_ATTEMPT_STATUSES, HELD_STATUSES } from "../jobs/constants";
import { statusList } from "../jobs/status-sql";

/** Success and failure counts look back this far. */
export const RUNTIME_RECENT_HOURS = 24;

/**
 * Runtime instances with what they hold now (HELD_STATUSES: an `expired` row's lease is lost, so it
 * is in no Runtime's hands; the held-lease partial index still serves the query) and what they
 * finished recently (JobEvent by actor, index on actorId + createdAt).
 */
export async function listRuntimes() {
  const db = getDb();
  const since = new Date(now().getTime() - RUNTIME_RECENT_HOURS * 3_600_000);
  const [instances, held, recent] = await Promise.all([
    db.runtimeInstance.findMany({ orderBy: { lastSeenAt: "desc" }, take: 500 }),
    db.$queryRaw<{ id: string; n: number; jobIds: string[] }[]>`
      SELECT "lockedBy" AS id, count(*)::int AS n, (array_agg(id ORDER BY "lockedAt"))[1:10] AS "jobIds"
      FROM "AiRuntimeJob" WHERE status IN (${statusList(HELD_STATUSES)}) AND "lockedBy" IS NOT NULL GROUP BY 1`,
    db.$queryRaw<{ id: string; succeeded: number; failed: number }[]>`
      SELECT "actorId" AS id,
        count(*) FILTER (WHERE "toStatus" = 'succeeded')::int AS succeeded,
        count(*) FILTER (WHERE "errorCode" IS NOT NULL AND "errorCode" <> 'CANCELLED'
          AND "toStatus" IN (${statusList(FAILED_ATTEMPT_STATUSES)}))::int AS failed
      FROM "JobEvent" WHERE "actorType" = 'runtime' AND "createdAt" >= ${since}::timestamp(3) GROUP BY 1`,
  ]);
  const h = new Map(held.map((r) => [r.id, r]));
  const rc = new Map(recent.map((r) => [r.id, r]));
  return instances.map((i) => ({
    id: i.id,
    capabilities: i.capabilities,
    version: i.version,
    firstSeenAt: i.firstSeenAt,
    lastSeenAt: i.lastSeenAt,
    jobsInHand: h.get(i.id)?.n ?? 0,
    heldJobIds: h.get(i.id)?.jobIds ?? [],
    recentSucceeded: rc.get(i.id)?.succeeded ?? 0,
    recentFailed: rc.get(i.id)?.failed ?? 0,
  }));
}
