import pg from "pg";
import { TERMINAL_STATUSES } from "../../server/jobs/constants";

/** The terminal set as SQL literals (this script speaks to the database through pg, not Prisma). */
export const TERMINAL_SQL = TERMINAL_STATUSES.map((s) => `'${s}'`).join(", ");

/**
 * After the storm: every job present and terminal, no job with two results, results only for
 * succeeded jobs, and retry counts / attempt numbers equal to what the JobEvents record.
 */
export async function verifyOutcome(db: pg.Client, expectedJobs: number) {
  const q = async <T = { n: number }>(sql: string) => (await db.query(sql)).rows[0] as T;
  const totals = await q<{
    jobs: number;
    succeeded: number;
    failed: number;
    cancelled: number;
    unfinished: number;
  }>(`SELECT count(*)::int AS jobs,
      count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
      count(*) FILTER (WHERE status = 'failed')::int AS failed,
      count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled,
      count(*) FILTER (WHERE status NOT IN (${TERMINAL_SQL}))::int AS unfinished
    FROM "AiRuntimeJob" WHERE "idempotencyKey" LIKE 'chaos-%'`);
  const doubled = await q(
    `SELECT count(*)::int AS n FROM (SELECT "jobId" FROM "AiRuntimeResult" GROUP BY 1 HAVING count(*) > 1) d`,
  );
  const strayResults = await q(
    `SELECT count(*)::int AS n FROM "AiRuntimeResult" r JOIN "AiRuntimeJob" j ON j.id = r."jobId" WHERE j.status <> 'succeeded'`,
  );
  const missingResults = await q(
    `SELECT count(*)::int AS n FROM "AiRuntimeJob" j WHERE j.status = 'succeeded' AND NOT EXISTS (SELECT 1 FROM "AiRuntimeResult" r WHERE r."jobId" = j.id)`,
  );
  const inconsistent = await q(`SELECT count(*)::int AS n FROM "AiRuntimeJob" j
    LEFT JOIN LATERAL (SELECT count(*) FILTER (WHERE "toStatus" = 'locked') AS locks,
                              count(*) FILTER (WHERE "toStatus" = 'pending' AND "fromStatus" IS NOT NULL) AS retries,
                              (array_agg("toStatus" ORDER BY id DESC))[1] AS last
                       FROM "JobEvent" e WHERE e."jobId" = j.id) ev ON true
    WHERE j."idempotencyKey" LIKE 'chaos-%' AND (j."attemptNo" <> ev.locks OR j."retryCount" <> ev.retries OR j.status <> ev.last)`);
  const violations = [
    totals.jobs !== expectedJobs && `${expectedJobs - totals.jobs} jobs lost`,
    totals.unfinished > 0 && `${totals.unfinished} jobs not terminal`,
    doubled.n > 0 && `${doubled.n} jobs with two results`,
    strayResults.n > 0 && `${strayResults.n} results on jobs that did not succeed`,
    missingResults.n > 0 && `${missingResults.n} succeeded jobs without a result`,
    inconsistent.n > 0 && `${inconsistent.n} jobs whose attempts or retries disagree with their events`,
  ].filter(Boolean) as string[];
  return { ...totals, doubleResults: doubled.n, inconsistent: inconsistent.n, violations };
}

export async function succeededCount(db: pg.Client) {
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status = 'succeeded' AND "idempotencyKey" LIKE 'chaos-%'`,
  );
  return rows[0].n as number;
}
