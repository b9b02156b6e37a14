import pg from "pg";
import { TERMINAL_STATUSES } from "../../server/jobs/constants";

/** The terminal set as SQL literals (this script speaks to the database through pg, not Prisma). */
export const TERMINAL_SQL = TERMINAL_STATUSES.map((s) => `'${s}'`).join(", ");

/**
 * After the storm: every job present and terminal, and no job ran to a second *accepted*
 * completion. The results table cannot hold two rows for one job (jobId is unique), so counting
 * rows per job proves nothing; what is checked instead is each job's attempt history:
 * - accepted completions: a job has exactly one `→ succeeded` event if it succeeded and none
 *   otherwise, and a result exactly when it succeeded;
 * - the result is the accepted attempt's: its attemptNo is the succeeded event's, an attempt the
 *   job really locked, the job's last attempt, and its idempotency key names that attempt;
 * - nothing follows an accepted completion (no event after `→ succeeded`: a terminal state is final);
 * - retry counts, attempt numbers and the final status equal what the JobEvents record.
 * `scope` narrows the jobs checked (the chaos run's own: idempotency keys `chaos-%`).
 */
export async function verifyOutcome(db: pg.Client, expectedJobs: number, scope = `j."idempotencyKey" LIKE 'chaos-%'`) {
  const q = async <T = { n: number }>(sql: string) => (await db.query(sql)).rows[0] as T;
  const count = (sql: string) => q(`SELECT count(*)::int AS n FROM "AiRuntimeJob" j ${sql}`).then((r) => r.n);
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
    FROM "AiRuntimeJob" j WHERE ${scope}`);
  const completions = `(SELECT count(*) FROM "JobEvent" e WHERE e."jobId" = j.id AND e."toStatus" = 'succeeded')`;
  const secondCompletions = await count(`WHERE ${scope} AND ${completions} > 1`);
  const completionWithoutSuccess = await count(`WHERE ${scope} AND j.status <> 'succeeded' AND ${completions} > 0`);
  const successWithoutCompletion = await count(`WHERE ${scope} AND j.status = 'succeeded' AND ${completions} <> 1`);
  const strayResults = await count(
    `JOIN "AiRuntimeResult" r ON r."jobId" = j.id WHERE ${scope} AND j.status <> 'succeeded'`,
  );
  const missingResults = await count(
    `WHERE ${scope} AND j.status = 'succeeded' AND NOT EXISTS (SELECT 1 FROM "AiRuntimeResult" r WHERE r."jobId" = j.id)`,
  );
  // The stored result belongs to the attempt whose completion was accepted, and that attempt is real and the last.
  const foreignResults = await count(`JOIN "AiRuntimeResult" r ON r."jobId" = j.id WHERE ${scope} AND (
      r."attemptNo" <> j."attemptNo"
      OR NOT EXISTS (SELECT 1 FROM "JobEvent" e WHERE e."jobId" = j.id AND e."toStatus" = 'succeeded' AND e."attemptNo" = r."attemptNo")
      OR NOT EXISTS (SELECT 1 FROM "JobEvent" e WHERE e."jobId" = j.id AND e."toStatus" = 'locked' AND e."attemptNo" = r."attemptNo"))`);
  const afterCompletion = await count(`WHERE ${scope} AND EXISTS (
      SELECT 1 FROM "JobEvent" s JOIN "JobEvent" later ON later."jobId" = s."jobId" AND later.id > s.id
      WHERE s."jobId" = j.id AND s."toStatus" = 'succeeded')`);
  const inconsistent = await count(`
    LEFT JOIN LATERAL (SELECT count(*) FILTER (WHERE "toStatus" = 'locked') AS locks,
                              count(*) FILTER (WHERE "toStatus" = 'pending' AND "fromStatus" IS NOT NULL) AS retries,
                              (array_agg("toStatus" ORDER BY id DESC))[1] AS last
                       FROM "JobEvent" e WHERE e."jobId" = j.id) ev ON true
    WHERE ${scope} AND (j."attemptNo" <> ev.locks OR j."retryCount" <> ev.retries OR j.status <> ev.last)`);
  const violations = [
    totals.jobs !== expectedJobs && `${expectedJobs - totals.jobs} jobs lost`,
    totals.unfinished > 0 && `${totals.unfinished} jobs not terminal`,
    secondCompletions > 0 && `${secondCompletions} jobs accepted a completion twice`,
    completionWithoutSuccess > 0 &&
      `${completionWithoutSuccess} jobs with an accepted completion that did not end succeeded`,
    successWithoutCompletion > 0 &&
      `${successWithoutCompletion} succeeded jobs without exactly one accepted completion`,
    strayResults > 0 && `${strayResults} results on jobs that did not succeed`,
    missingResults > 0 && `${missingResults} succeeded jobs without a result`,
    foreignResults > 0 && `${foreignResults} results not from the attempt whose completion was accepted`,
    afterCompletion > 0 && `${afterCompletion} jobs that moved on after an accepted completion`,
    inconsistent > 0 && `${inconsistent} jobs whose attempts or retries disagree with their events`,
  ].filter(Boolean) as string[];
  return {
    ...totals,
    secondCompletions,
    foreignResults,
    afterCompletion,
    inconsistent,
    violations,
  };
}

export async function succeededCount(db: pg.Client) {
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM "AiRuntimeJob" WHERE status = 'succeeded' AND "idempotencyKey" LIKE 'chaos-%'`,
  );
  return rows[0].n as number;
}
