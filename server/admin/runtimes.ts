import { getDb } from "../db";
import { now } from "../clock";
import { Prisma } from "../generated/prisma/client";
import { HELD_STATUSES } from "../jobs/constants";
import { deprecationOf } from "../runtime-api/protocol";
import { statusList } from "../jobs/status-sql";
import { LAST_EVENT, RUNTIME_FAILED, RUNTIME_SUCCEEDED } from "../observability/rollup-sql";

/** Success and failure counts look back this far. */
export const RUNTIME_RECENT_HOURS = 24;

/**
 * Runtime instances with what they hold now (HELD_STATUSES: an `expired` row's lease is lost, so it
 * is in no Runtime's hands; the queue table's live statuses serve the query) and what they
 * finished recently (recentByRuntime).
 */
export async function listRuntimes() {
  const db = getDb();
  const since = new Date(now().getTime() - RUNTIME_RECENT_HOURS * 3_600_000);
  const [instances, held, recent] = await Promise.all([
    db.runtimeInstance.findMany({ orderBy: { lastSeenAt: "desc" }, take: 500 }),
    db.$queryRaw<{ id: string; n: number; jobIds: string[] }[]>`
      SELECT j."lockedBy" AS id, count(*)::int AS n, (array_agg(j.id ORDER BY j."lockedAt"))[1:10] AS "jobIds"
      FROM "JobQueue" q JOIN "AiRuntimeJob" j ON j.id = q."jobId"
      WHERE q.status IN (${statusList(HELD_STATUSES)}) AND j.status IN (${statusList(HELD_STATUSES)}) AND j."lockedBy" IS NOT NULL GROUP BY 1`,
    recentByRuntime(since),
  ]);
  const h = new Map(held.map((r) => [r.id, r]));
  const rc = new Map(recent.map((r) => [r.id, r]));
  return instances.map((i) => ({
    id: i.id,
    capabilities: i.capabilities,
    version: i.version,
    /** The Runtime protocol its last request spoke, and that protocol's deprecation (null: current). */
    protocolVersion: i.protocolVersion,
    protocolDeprecation: deprecationOf(i.protocolVersion),
    firstSeenAt: i.firstSeenAt,
    lastSeenAt: i.lastSeenAt,
    jobsInHand: h.get(i.id)?.n ?? 0,
    heldJobIds: h.get(i.id)?.jobIds ?? [],
    recentSucceeded: rc.get(i.id)?.succeeded ?? 0,
    recentFailed: rc.get(i.id)?.failed ?? 0,
  }));
}

/**
 * Per Runtime instance, the attempts it ended succeeded or failed since `since`, exactly, without
 * reading a day of events: the whole hours from the hourly rollups (events up to the watermark),
 * the part hour at `since` from the events up to the watermark (createdAt index), and the events
 * past the watermark (primary-key range; materialized, or the planner, not knowing the watermark,
 * walked a day of the createdAt index instead). The three parts are disjoint and together every event.
 */
export async function recentByRuntime(since: Date) {
  return getDb().$queryRaw<{ id: string; succeeded: number; failed: number }[]>(recentSql(since));
}

/** recentByRuntime's statement. */
export function recentSql(since: Date) {
  const hour = 3_600_000;
  const whole = new Date(Math.ceil(since.getTime() / hour) * hour);
  const counts = Prisma.sql`count(*) FILTER (WHERE ${RUNTIME_SUCCEEDED}) AS s, count(*) FILTER (WHERE ${RUNTIME_FAILED}) AS f`;
  return Prisma.sql`
    WITH st AS (SELECT coalesce((SELECT "eventId" FROM "ConsoleRollupState" WHERE id = 1), 0) AS w),
    past AS MATERIALIZED (
      SELECT "actorId", "actorType", "toStatus", "errorCode", "createdAt" FROM "JobEvent"
      WHERE id > (SELECT w FROM st) AND id <= ${LAST_EVENT})
    SELECT id, sum(s)::int AS succeeded, sum(f)::int AS failed FROM (
      SELECT "actorId" AS id, succeeded AS s, failed AS f FROM "RuntimeHourRollup" WHERE start >= ${whole}::timestamp(3)
      UNION ALL
      SELECT "actorId", ${counts} FROM "JobEvent"
      WHERE "actorType" = 'runtime' AND "createdAt" >= ${since}::timestamp(3) AND "createdAt" < ${whole}::timestamp(3)
        AND id <= (SELECT w FROM st) GROUP BY 1
      UNION ALL
      SELECT "actorId", ${counts} FROM past WHERE "actorType" = 'runtime' AND "createdAt" >= ${since}::timestamp(3) GROUP BY 1
    ) x WHERE id IS NOT NULL GROUP BY 1`;
}
