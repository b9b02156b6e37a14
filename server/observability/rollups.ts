import { Prisma } from "../generated/prisma/client";
import { getDb, type DbOrTx } from "../db";
import { rollupConfig } from "../config";
import { DELTA_CTE, ORIGIN, RUNTIME_FAILED, RUNTIME_SUCCEEDED, TIMES_CTE, WIDTHS, eventsCte } from "./rollup-sql";

/**
 * Console rollups, folded from the JobEvent stream behind a watermark, so the console and
 * /api/metrics read a few hundred rollup rows instead of scanning millions of jobs and events,
 * and the job hot path pays nothing (no trigger, no extra statement: the transition statements
 * already write one JobEvent per status change, which is all this reads).
 *
 * The watermark (ConsoleRollupState.eventId) must never pass an event that could still commit:
 * JobEvent ids come from a sequence, so id 100 may commit after id 101. Each advance therefore
 * records the highest visible id together with the snapshot's xmax, and folds up to it only on a
 * later advance, once the oldest running transaction is newer than that xmax (every transaction
 * that could have held a lower id has ended). Reads add the few seconds of events past the
 * watermark live, so what they show is current, not a tick old.
 *
 * Counts can drift from jobs deleted by retention (their events go with them) or rows written
 * without events (bulk loads): a recount, at first use and then every ROLLUP_RECOUNT_HOURS,
 * resets them from the table.
 */

type State = {
  eventId: bigint;
  pendingEventId: bigint | null;
  pendingXmax: bigint | null;
  countedAt: Date | null;
  xmin: bigint;
};

export type AdvanceResult = { ran: boolean; folded: number; eventId: string; recounted: boolean };

/** One tick: recount if due, fold every event that is safe to fold, record the next watermark. */
export async function advanceRollups(opts: { recount?: boolean } = {}): Promise<AdvanceResult> {
  const db = getDb();
  await db.$executeRaw`INSERT INTO "ConsoleRollupState" (id) VALUES (1) ON CONFLICT DO NOTHING`;
  let folded = 0;
  let recounted = false;
  let eventId = 0n;
  for (;;) {
    const step = await db.$transaction(
      async (tx) => {
        // SKIP LOCKED: another process is advancing right now; this tick has nothing to add.
        const [st] = await tx.$queryRaw<State[]>`
          SELECT "eventId", "pendingEventId", "pendingXmax", "countedAt", pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin
          FROM "ConsoleRollupState" WHERE id = 1 FOR UPDATE SKIP LOCKED`;
        if (!st) return null;
        let w = st.eventId;
        const due = !st.countedAt || Date.now() - st.countedAt.getTime() > rollupConfig.recountHours * 3_600_000;
        if (!recounted && (due || opts.recount)) {
          await recount(tx, w);
          recounted = true;
        }
        let n = 0;
        const safe = st.pendingEventId !== null && st.pendingXmax !== null && st.xmin >= st.pendingXmax;
        if (safe && st.pendingEventId! > w) {
          const hi =
            st.pendingEventId! - w > BigInt(rollupConfig.chunk) ? w + BigInt(rollupConfig.chunk) : st.pendingEventId!;
          n = await fold(tx, w, hi);
          w = hi;
          await tx.$executeRaw`UPDATE "ConsoleRollupState" SET "eventId" = ${w}, "updatedAt" = now() WHERE id = 1`;
        }
        const more = safe && st.pendingEventId! > w;
        // The next watermark is chosen only once this one is reached: moving it while waiting
        // would restart the wait on every tick under steady load.
        if (st.pendingEventId === null || w >= st.pendingEventId)
          await tx.$executeRaw`
            UPDATE "ConsoleRollupState" SET "pendingEventId" = (SELECT coalesce(max(id), 0) FROM "JobEvent"),
              "pendingXmax" = pg_snapshot_xmax(pg_current_snapshot())::text::bigint WHERE id = 1`;
        return { n, w, more };
      },
      { timeout: 120_000, maxWait: 10_000 },
    );
    if (!step) return { ran: false, folded, eventId: eventId.toString(), recounted };
    folded += step.n;
    eventId = step.w;
    if (!step.more) return { ran: true, folded, eventId: eventId.toString(), recounted };
  }
}

/** Adds events (lo, hi] to the counters, the time rollups of every width and the Runtimes' hours. */
async function fold(tx: DbOrTx, lo: bigint, hi: bigint): Promise<number> {
  const widths = Prisma.join(WIDTHS.map((w) => Prisma.sql`(${Prisma.raw(String(w))})`));
  const [row] = await tx.$queryRaw<{ events: number }[]>`
    WITH ${eventsCte(Prisma.sql`${lo}::bigint`, Prisma.sql`${hi}::bigint`)}, ${DELTA_CTE}, ${TIMES_CTE},
    c AS (
      INSERT INTO "JobCountRollup" (status, "jobType", n) SELECT status, "jobType", n FROM delta WHERE n <> 0
      ON CONFLICT (status, "jobType") DO UPDATE SET n = "JobCountRollup".n + EXCLUDED.n RETURNING 1
    ), t AS (
      INSERT INTO "JobTimeRollup" (width, start, kind, idx, n)
      SELECT w.width, date_bin(make_interval(mins => w.width), at, ${ORIGIN}), kind, idx, count(*) FROM times, (VALUES ${widths}) w(width)
      GROUP BY 1, 2, 3, 4
      ON CONFLICT (width, start, kind, idx) DO UPDATE SET n = "JobTimeRollup".n + EXCLUDED.n RETURNING 1
    ), r AS (
      INSERT INTO "RuntimeHourRollup" ("actorId", start, succeeded, failed)
      SELECT "actorId", date_trunc('hour', at), count(*) FILTER (WHERE ${RUNTIME_SUCCEEDED}), count(*) FILTER (WHERE ${RUNTIME_FAILED})
      FROM ev WHERE "actorType" = 'runtime' AND "actorId" IS NOT NULL GROUP BY 1, 2
      HAVING count(*) FILTER (WHERE ${RUNTIME_SUCCEEDED} OR ${RUNTIME_FAILED}) > 0
      ON CONFLICT ("actorId", start) DO UPDATE SET succeeded = "RuntimeHourRollup".succeeded + EXCLUDED.succeeded,
        failed = "RuntimeHourRollup".failed + EXCLUDED.failed RETURNING 1
    )
    SELECT (SELECT count(*) FROM ev)::int AS events`;
  return row?.events ?? 0;
}

/**
 * Counters from the table itself, minus what the events past the watermark did (the reads add
 * those back), in one statement so both sides see the same snapshot. Also drops time rows older
 * than any window reads.
 */
async function recount(tx: DbOrTx, w: bigint) {
  await tx.$executeRaw`
    WITH ${eventsCte(Prisma.sql`${w}::bigint`)}, ${DELTA_CTE},
    counted AS (SELECT status, "jobType", count(*)::bigint AS n FROM "AiRuntimeJob" GROUP BY 1, 2),
    combos AS (SELECT s, t FROM unnest(enum_range(NULL::"JobStatus")) s, unnest(enum_range(NULL::"JobType")) t)
    INSERT INTO "JobCountRollup" (status, "jobType", n)
    SELECT c.s, c.t, coalesce(k.n, 0) - coalesce(d.n, 0) FROM combos c
      LEFT JOIN counted k ON k.status = c.s AND k."jobType" = c.t
      LEFT JOIN delta d ON d.status = c.s AND d."jobType" = c.t
    ON CONFLICT (status, "jobType") DO UPDATE SET n = EXCLUDED.n`;
  await tx.$executeRaw`UPDATE "ConsoleRollupState" SET "countedAt" = now() WHERE id = 1`;
  await tx.$executeRaw`
    DELETE FROM "JobTimeRollup" WHERE (width = 1 AND start < now() - interval '2 days') OR (width IN (30, 360) AND start < now() - interval '9 days')`;
  await tx.$executeRaw`DELETE FROM "RuntimeHourRollup" WHERE start < now() - interval '2 days'`;
}

/**
 * Jobs per status and type now: the counters plus the events past the watermark. Before the
 * first recount (a fresh install whose rollup task has not run) it counts the table instead.
 */
export async function jobCounts(db: DbOrTx = getDb()) {
  type Row = { status: string | null; jobType: string; n: number };
  const rows = await db.$queryRaw<Row[]>(jobCountsSql());
  if (!rows.some((r) => r.status === null)) return rows as { status: string; jobType: string; n: number }[];
  return db.$queryRaw<{ status: string; jobType: string; n: number }[]>`
    SELECT status::text AS status, "jobType"::text AS "jobType", count(*)::int AS n FROM "AiRuntimeJob" GROUP BY 1, 2`;
}

/**
 * jobCounts' statement: the counts, or one row of NULLs when nothing has been counted yet. The
 * table's own count is a statement of its own: as a branch of this one behind "not counted", the
 * planner gave it a parallel scan of every partition, and the two workers it started (to do
 * nothing) cost every read 30–40 ms (tests/db/console-plans.test.ts).
 */
export function jobCountsSql() {
  return Prisma.sql`
    WITH st AS (SELECT "eventId" AS w FROM "ConsoleRollupState" WHERE id = 1 AND "countedAt" IS NOT NULL),
    ${eventsCte(Prisma.sql`(SELECT w FROM st)`)}, ${DELTA_CTE}
    SELECT status::text AS status, "jobType"::text AS "jobType", sum(n)::int AS n FROM (
      SELECT status, "jobType", n FROM "JobCountRollup" UNION ALL SELECT status, "jobType", n FROM delta
    ) x WHERE EXISTS (SELECT 1 FROM st) GROUP BY 1, 2 HAVING sum(n) <> 0
    UNION ALL
    SELECT NULL, NULL, 0 WHERE NOT EXISTS (SELECT 1 FROM st)`;
}

export type TimeRow = { b: Date; kind: string; idx: number; n: number };

/**
 * Finished counts and run / wait histograms per bucket of `bucketMinutes` (a multiple of
 * `width`) between `from` and `to`: rollup rows of that width plus the events past the watermark.
 */
export async function timeSeries(
  width: (typeof WIDTHS)[number],
  bucketMinutes: number,
  from: Date,
  to: Date,
): Promise<TimeRow[]> {
  return getDb().$queryRaw<TimeRow[]>(timeSeriesSql(width, bucketMinutes, from, to));
}

/** timeSeries' statement. */
export function timeSeriesSql(width: (typeof WIDTHS)[number], bucketMinutes: number, from: Date, to: Date) {
  const widthSql = Prisma.raw(String(width));
  const bucket = Prisma.sql`make_interval(mins => ${Prisma.raw(String(bucketMinutes))})`;
  return Prisma.sql`
    WITH st AS (SELECT coalesce((SELECT "eventId" FROM "ConsoleRollupState" WHERE id = 1), 0) AS w),
    ${eventsCte(Prisma.sql`(SELECT w FROM st)`)}, ${TIMES_CTE}
    SELECT date_bin(${bucket}, start, ${ORIGIN}) AS b, kind, idx, sum(n)::int AS n FROM (
      SELECT start, kind, idx, n FROM "JobTimeRollup"
      WHERE width = ${widthSql} AND start >= ${from}::timestamp(3) AND start <= ${to}::timestamp(3)
      UNION ALL
      SELECT date_bin(make_interval(mins => ${widthSql}), at, ${ORIGIN}), kind, idx, count(*) FROM times
      WHERE at >= ${from}::timestamp(3) AND at <= ${to}::timestamp(3) GROUP BY 1, 2, 3
    ) x GROUP BY 1, 2, 3`;
}
