import { Prisma } from "../generated/prisma/client";
import { FAILED_ATTEMPT_STATUSES, OUTCOME_STATUSES } from "../jobs/constants";
import { statusList } from "../jobs/status-sql";
import { histBucketSql } from "./histogram";

/**
 * SQL shared by the rollup fold (events up to the watermark, written into the rollup tables)
 * and the console's reads (events after it, added live). Both read events by primary-key range,
 * so neither ever scans the JobEvent table.
 */

/** The newest event's id (one step down the primary key): an upper bound the planner can use. */
export const LAST_EVENT = Prisma.sql`(SELECT max(id) FROM "JobEvent")`;

/**
 * `ev`: the events with lo < id (≤ hi), with the job fields the rollups need.
 *
 * Open-ended (no `hi`: the events past the watermark, which reads add live), each event looks its
 * job up by primary key (a LATERAL subquery the planner cannot flatten). The watermark is a
 * subquery there, so the planner cannot tell those events are few; left to itself it guessed a
 * third of the table and hashed every job to join them: a scan of the whole job table on every
 * console read while jobs were moving (tests/db/console-plans.test.ts holds it).
 * The upper bound (the newest event, which bounds every event anyway) makes the range one the
 * planner reads by primary key. A fold's chunk (lo, hi] is bounded by values the planner sees, and
 * joins as it judges best.
 */
export function eventsCte(lo: Prisma.Sql, hi?: Prisma.Sql): Prisma.Sql {
  const fields = Prisma.sql`e."fromStatus", e."toStatus", e."attemptNo", e."createdAt" AS at, e."actorType", e."actorId", e."errorCode",
      j."jobType", j."lockedAt", j."createdAt" AS created`;
  if (!hi)
    return Prisma.sql`ev AS (
    SELECT ${fields} FROM "JobEvent" e
    CROSS JOIN LATERAL (SELECT "jobType", "lockedAt", "createdAt" FROM "AiRuntimeJob" WHERE id = e."jobId" OFFSET 0) j
    WHERE e.id > ${lo} AND e.id <= ${LAST_EVENT})`;
  return Prisma.sql`ev AS (
    SELECT ${fields} FROM "JobEvent" e JOIN "AiRuntimeJob" j ON j.id = e."jobId"
    WHERE e.id > ${lo} AND e.id <= ${hi})`;
}

/** `delta`: per (status, jobType), how many jobs the events in `ev` moved in (+) or out (−). */
export const DELTA_CTE = Prisma.sql`delta AS (
    SELECT status, "jobType", sum(d)::bigint AS n FROM (
      SELECT "toStatus" AS status, "jobType", 1 AS d FROM ev
      UNION ALL SELECT "fromStatus", "jobType", -1 FROM ev WHERE "fromStatus" IS NOT NULL
    ) x GROUP BY 1, 2)`;

/**
 * `times`: one row per fact the time series count: a job finished (succeeded / failed), its run
 * time (lock → finish) and, for a first-attempt lock, its wait (creation → lock), as histogram
 * bucket `idx`.
 */
export const TIMES_CTE = Prisma.sql`times AS (
    SELECT at, "toStatus"::text AS kind, 0 AS idx FROM ev WHERE "toStatus" IN (${statusList(OUTCOME_STATUSES)})
    UNION ALL
    SELECT at, 'run', ${histBucketSql(Prisma.sql`extract(epoch FROM at - "lockedAt")::float8`)} FROM ev
      WHERE "toStatus" IN (${statusList(OUTCOME_STATUSES)}) AND "lockedAt" IS NOT NULL
    UNION ALL
    SELECT at, 'wait', ${histBucketSql(Prisma.sql`extract(epoch FROM at - created)::float8`)} FROM ev
      WHERE "toStatus" = 'locked' AND "attemptNo" = 1)`;

/** Time buckets start on multiples of their width from this origin (a UTC midnight). */
export const ORIGIN = Prisma.sql`timestamp '2000-01-01'`;

/**
 * Widths kept in JobTimeRollup: minutes for the last hour, half hours for a day, six hours for a
 * week (the 7d overview reads 28 buckets' rows, not 336 half hours').
 */
export const WIDTHS = [1, 30, 360] as const;

/**
 * What the Runtimes page counts per instance, for an event row (of JobEvent or of `ev`): an
 * attempt the Runtime ended succeeded, or in a failure that was not a cancel.
 */
export const RUNTIME_SUCCEEDED = Prisma.sql`("toStatus" = 'succeeded')`;
export const RUNTIME_FAILED = Prisma.sql`("errorCode" IS NOT NULL AND "errorCode" <> 'CANCELLED'
  AND "toStatus" IN (${statusList(FAILED_ATTEMPT_STATUSES)}))`;
