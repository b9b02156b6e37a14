import pg from "pg";
import { getPool } from "../db";
import { setting } from "../config";
import { now } from "../clock";

/**
 * Time partitions (issue 26, item 4). Jobs, results and events are partitioned by RANGE of the job
 * id (prisma/migrations/…_time_partitions). A job id is a cuid: "c", then its creation time in
 * milliseconds in base 36 (8 digits until 2059), then counter and randomness; so the ids made in a
 * time span form one range, and a job's result and events sit in the partition of the same span.
 *
 * The app makes the spans ahead of time (`ensurePartitions`: at every migration run and daily), each
 * JOB_PARTITION_DAYS wide and aligned to multiples of that width since the Unix epoch; retention
 * drops a whole span once every job in it has ended before the cutoff (`dropAgedPartitions`),
 * instead of deleting its rows. Ids no span holds (not cuids, or made while no span was there) go
 * to the `_default` partition, and jobs made before the migration sit in `_before`: retention
 * deletes their rows as it always did (server/jobs/retention.ts).
 */

const DAY = 86_400_000;
/** The partitioned tables, each keyed by a job id; the job table last, as the others refer to it. */
export const PARTITIONED = [
  { table: "JobEvent", key: "jobId" },
  { table: "AiRuntimeResult", key: "jobId" },
  { table: "AiRuntimeJob", key: "id" },
] as const;
const JOBS = "AiRuntimeJob";
/** Tables that refer to a job and are not partitioned: their rows of a span go before the span. */
const SMALL_REFERRERS = ["FlashcardMark", "JobRejection", "NextActionTick"] as const;
/** Spans made ahead of the present. */
const AHEAD = 4;
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

/** The job table's spans (range partitions with two id bounds), oldest first. */
export async function listSpans(db: Queryable = getPool()): Promise<Span[]> {
  const { rows } = await db.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
    [`"${JOBS}"`],
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
    [`${JOBS}_before`],
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
 * `at`, each in one transaction for the three tables. A span whose ids the `_default` partition
 * already holds (made while no span was there) cannot be made: it is left out, and its jobs stay in
 * `_default`. Returns the partitions made.
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
    const name = `${JOBS}_${suffix(from)}`;
    try {
      await inTransaction(db, async (c) => {
        if ((await listSpans(c)).some((s) => s.from < to && from < s.to)) return;
        for (const { table } of [...PARTITIONED].reverse())
          await c.query(
            `CREATE TABLE "${table}_${suffix(from)}" PARTITION OF "${table}" FOR VALUES FROM ('${idAt(from)}') TO ('${idAt(to)}')` +
              (table === JOBS ? " WITH (fillfactor = 85)" : ""),
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
 * Drops every span that ended (a day of clock skew past) whose jobs have all ended, the last
 * before `cutoff`: its events, results and jobs go with three DROP TABLEs. First, in the same
 * transaction, re-run links into it are cleared (as ON DELETE SET NULL would) and the few rows
 * of unpartitioned tables that refer to its jobs are deleted. Returns the spans dropped.
 */
export async function dropAgedPartitions(
  cutoff: Date,
  db: Queryable = getPool(),
  at = now().getTime(),
): Promise<string[]> {
  const dropped: string[] = [];
  for (const span of await listSpans(db)) {
    if (span.to > at - SKEW_MARGIN_MS) continue;
    const done = await inTransaction(db, async (c) => {
      // Writes wait (readers do not) while the span is checked and dropped.
      await c.query(`LOCK TABLE "${span.name}" IN EXCLUSIVE MODE`);
      const { rows } = await c.query<{ busy: boolean; last: Date | null }>(
        `SELECT EXISTS (SELECT 1 FROM "${span.name}" WHERE status = 'pending')
             OR EXISTS (SELECT 1 FROM "${span.name}" WHERE status IN ('locked', 'running', 'expired')) AS busy,
           (SELECT max("finishedAt") FROM "${span.name}" WHERE "finishedAt" IS NOT NULL) AS last`,
      );
      if (rows[0]!.busy || (rows[0]!.last && rows[0]!.last >= cutoff)) return false;
      const lo = idAt(span.from);
      const hi = idAt(span.to);
      await c.query(
        `UPDATE "${JOBS}" SET "retriedFromJobId" = NULL WHERE "retriedFromJobId" >= $1 AND "retriedFromJobId" < $2`,
        [lo, hi],
      );
      for (const t of SMALL_REFERRERS)
        await c.query(`DELETE FROM "${t}" WHERE "jobId" >= $1 AND "jobId" < $2`, [lo, hi]);
      const part = span.name.slice(JOBS.length);
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
