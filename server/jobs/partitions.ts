import pg from "pg";
import { getPool } from "../db";
import { setting } from "../config";
import { now } from "../clock";
import { TERMINAL_STATUSES } from "./constants";

/**
 * Time partitions. Jobs, their events and their results are partitioned by RANGE
 * of the job id (prisma/migrations/…_event_result_partitions, …_job_partitions). A job id is a
 * cuid: "c", then its creation time in milliseconds in base 36 (8 digits until 2059), then counter
 * and randomness; so the ids made in a time span form one range, and a job's events and result sit
 * in the partitions of its span, each with a foreign key to that span's job partition.
 *
 * The app makes the spans ahead of time (`ensurePartitions`: at every migration run and daily), each
 * JOB_PARTITION_DAYS wide and aligned to multiples of that width since the Unix epoch; retention
 * drops a span's events, results and jobs once every job of the span has ended before the cutoff
 * (`dropAgedPartitions`), instead of deleting rows. Ids no span holds go to the `_default`
 * partitions, and rows from before the migrations sit in `_before`: retention deletes those rows as
 * it always did (server/jobs/retention.ts). The hot path names a job's own partition
 * (server/jobs/job-partition.ts), so a statement plans and opens one table, not every span's.
 */

const DAY = 86_400_000;
/** The partitioned tables, each by a job id; the job table last, as the others refer to it. */
export const PARTITIONED = [{ table: "JobEvent" }, { table: "AiRuntimeResult" }, { table: "AiRuntimeJob" }] as const;
const SPANS = "JobEvent";
const JOBS = "AiRuntimeJob";
/** Tables that refer to a job and are not partitioned: their rows of a span go before the span. */
const SMALL_REFERRERS = ["FlashcardMark", "JobRejection", "NextActionTick"] as const;
/** Spans made ahead of the present (the daily run makes the next long before it is needed). */
const AHEAD = 2;
/** A span is dropped only this long after its end: an instance whose clock is behind may still make ids in it. */
const SKEW_MARGIN_MS = DAY;
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
/** ensurePartitions and dropAgedPartitions of several instances take turns. */
const MAINTENANCE_LOCK = 26_004;

type Queryable = pg.Pool | pg.ClientBase;
export type Span = { name: string; from: number; to: number };

export function partitionDays() {
  const days = setting("JOB_PARTITION_DAYS");
  return Number.isFinite(days) && days >= 1 ? Math.floor(days) : 7;
}

/** The smallest job id made at `ms`: "c" and the time in base 36, 8 digits. */
export function idAt(ms: number): string {
  let n = Math.max(0, Math.floor(ms));
  let digits = "";
  do {
    digits = ALPHABET[n % 36] + digits;
    n = Math.floor(n / 36);
  } while (n > 0);
  return "c" + digits.padStart(8, "0");
}

/** The time an id bound stands for (the inverse of idAt), or null for one that is not. */
export function timeOfId(bound: string): number | null {
  if (!/^c[0-9a-z]{8}$/.test(bound)) return null;
  let n = 0;
  for (const ch of bound.slice(1)) n = n * 36 + ALPHABET.indexOf(ch);
  return n;
}

/** The spans (range partitions of the events with two id bounds), oldest first. */
export async function listSpans(db: Queryable = getPool()): Promise<Span[]> {
  const { rows } = await db.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
    [`"${SPANS}"`],
  );
  const spans: Span[] = [];
  for (const r of rows) {
    const m = /^FOR VALUES FROM \('([^']*)'\) TO \('([^']*)'\)$/.exec(r.bound);
    const from = m ? timeOfId(m[1]!) : null;
    const to = m ? timeOfId(m[2]!) : null;
    if (from !== null && to !== null) spans.push({ name: r.name, from, to });
  }
  return spans.sort((a, b) => a.from - b.from);
}

/** Where the `_before` partition ends (the migration's time), if there is one. */
async function beforeEnd(db: Queryable): Promise<number | null> {
  const { rows } = await db.query<{ bound: string }>(
    `SELECT pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_class c WHERE c.relname = $1`,
    [`${SPANS}_before`],
  );
  const m = rows[0] && /TO \('([^']*)'\)/.exec(rows[0].bound);
  return m ? timeOfId(m[1]!) : null;
}

function suffix(ms: number) {
  return "p" + new Date(ms).toISOString().replace(/[-:T]/g, "").slice(0, 12);
}

async function inTransaction<T>(db: Queryable, fn: (c: pg.ClientBase) => Promise<T>): Promise<T> {
  const client = db instanceof pg.Pool ? await db.connect() : db;
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL lock_timeout = '5s'");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MAINTENANCE_LOCK]);
    const out = await fn(client);
    await client.query("COMMIT");
    return out;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw e;
  } finally {
    if (db instanceof pg.Pool) (client as pg.PoolClient).release();
  }
}

/**
 * Makes the spans from the newest one's end (or the `_before` partition's) to AHEAD spans past
 * `at`, each in one transaction for both tables. A span whose ids the `_default` partition already
 * holds (made while no span was there) cannot be made: it is left out, and those events and results
 * stay in `_default`. Returns the spans made and those left out.
 */
export async function ensurePartitions(
  db: Queryable = getPool(),
  at = Date.now(),
): Promise<{ made: string[]; skipped: string[] }> {
  const width = partitionDays() * DAY;
  const made: string[] = [];
  const skipped: string[] = [];
  const spans = await listSpans(db);
  let from = spans.length ? spans[spans.length - 1]!.to : ((await beforeEnd(db)) ?? at);
  const until = (Math.floor(at / width) + 1 + AHEAD) * width;
  for (let n = 0; from < until && n < 1000; n++) {
    const to = (Math.floor(from / width) + 1) * width;
    const name = `${SPANS}_${suffix(from)}`;
    try {
      await inTransaction(db, async (c) => {
        if ((await listSpans(c)).some((s) => s.from < to && from < s.to)) return;
        const part = `_${suffix(from)}`;
        for (const { table } of [...PARTITIONED].reverse())
          await c.query(
            `CREATE TABLE "${table}${part}" PARTITION OF "${table}" FOR VALUES FROM ('${idAt(from)}') TO ('${idAt(to)}')` +
              (table === JOBS ? " WITH (fillfactor = 70)" : ""),
          );
        for (const { table } of PARTITIONED.filter((t) => t.table !== JOBS))
          await c.query(
            `ALTER TABLE "${table}${part}" ADD CONSTRAINT "${table}${part}_jobId_fkey" FOREIGN KEY ("jobId")
             REFERENCES "${JOBS}${part}" (id) ON DELETE CASCADE ON UPDATE CASCADE`,
          );
        made.push(name);
      });
    } catch (e) {
      // 23514: the default partition holds ids of this span.
      if ((e as { code?: string }).code !== "23514") throw e;
      skipped.push(name);
    }
    from = to;
  }
  return { made, skipped };
}

/**
 * Drops every span that ended (a day of clock skew past) before `cutoff` and whose jobs have all
 * ended before it: its events, results and jobs go with three DROP TABLEs, no row deleted. First,
 * in the same transaction, re-run links into it are cleared (as ON DELETE SET NULL would) and the
 * few rows of unpartitioned tables that refer to its jobs are deleted. The three parents are locked
 * first, in the order transitions take them (jobs, then events and results), so a drop waits for
 * the transitions in flight instead of deadlocking with them (a reader that takes events before
 * jobs may still meet it in a deadlock: PostgreSQL ends one, and retention runs again the next
 * day). Returns the spans dropped.
 */
export async function dropAgedPartitions(
  cutoff: Date,
  db: Queryable = getPool(),
  at = now().getTime(),
): Promise<string[]> {
  const dropped: string[] = [];
  for (const span of await listSpans(db)) {
    if (span.to > at - SKEW_MARGIN_MS || span.to > cutoff.getTime()) continue;
    const part = span.name.slice(SPANS.length);
    const done = await inTransaction(db, async (c) => {
      // A job of a past span never goes back in flight, and no new one is made in it.
      const { rows } = await c.query<{ busy: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM "${JOBS}${part}" WHERE status <> ALL($2::"JobStatus"[]) OR "finishedAt" >= $1) AS busy`,
        [cutoff, TERMINAL_STATUSES],
      );
      if (rows[0]!.busy) return false;
      await c.query(`LOCK TABLE "${JOBS}", "JobEvent", "AiRuntimeResult" IN ACCESS EXCLUSIVE MODE`);
      const [lo, hi] = [idAt(span.from), idAt(span.to)];
      await c.query(
        `UPDATE "${JOBS}" SET "retriedFromJobId" = NULL WHERE "retriedFromJobId" >= $1 AND "retriedFromJobId" < $2`,
        [lo, hi],
      );
      for (const t of SMALL_REFERRERS)
        await c.query(`DELETE FROM "${t}" WHERE "jobId" >= $1 AND "jobId" < $2`, [lo, hi]);
      for (const { table } of PARTITIONED) {
        await c.query(`ALTER TABLE "${table}" DETACH PARTITION "${table}${part}"`);
        await c.query(`DROP TABLE "${table}${part}"`);
      }
      return true;
    });
    if (done) dropped.push(span.name);
  }
  return dropped;
}
