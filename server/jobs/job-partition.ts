import { getPool } from "../db";
import { now } from "../clock";
import { idAt } from "./partitions";

/**
 * Which partition of the job table a statement names. Planned over the parent, a
 * statement plans, locks and opens every span's partition with its indexes: with the 18 spans of
 * a 90-day retention, a claim's plan took 38 ms. Named by its partition, a statement is planned
 * and run as on one plain table (docs/performance.md, "The job table in time partitions").
 *
 * - `partitionOf(ids)`: the partition holding every job of `ids` (by the partitions' id bounds),
 *   else the parent. A result batch names its jobs, so it knows.
 * - `livePartition()`: claims and polls read the queue, which may hold jobs of any span. The one
 *   partition that may hold jobs in flight, else the parent: a partition is live if it has a job
 *   not ended (a pending, locked, running or expired row) or if ids made now (± MARGIN_MS of clock
 *   skew) fall in it. Only the present's spans get new jobs, and an ended job never goes back in
 *   flight, so an older partition found idle stays idle. Known again every TTL_MS, and at once
 *   when this process hears of a pending job outside it (`notePending`).
 * - A partition dropped since it was read (retention) answers 42P01: `onPartition` runs the
 *   statement again on the parent, which is always right.
 */
export const JOBS = "AiRuntimeJob";
const TTL_MS = 60_000;
const MARGIN_MS = 5 * 60_000;
const CUID = /^c[0-9a-z]{8,}$/;

type Range = { name: string; from: string | null; to: string | null };
type Known = { ranges: Range[]; live: string; at: number };
let known: Known | null = null;
let loading: Promise<Known> | null = null;

async function load(): Promise<Known> {
  const { rows } = await getPool().query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
    [`"${JOBS}"`],
  );
  const ranges: Range[] = [];
  for (const r of rows) {
    if (r.bound === "DEFAULT") {
      ranges.push({ name: r.name, from: null, to: null });
      continue;
    }
    const m = /^FOR VALUES FROM \((MINVALUE|'[^']*')\) TO \('([^']*)'\)$/.exec(r.bound);
    if (m) ranges.push({ name: r.name, from: m[1] === "MINVALUE" ? null : m[1]!.slice(1, -1), to: m[2]! });
  }
  const t = now().getTime();
  const [lo, hi] = [idAt(t - MARGIN_MS), idAt(t + MARGIN_MS)];
  const live: string[] = [];
  for (const r of ranges) {
    const present = r.to !== null && (r.from === null || r.from <= hi) && lo < r.to;
    if (present || (await inFlight(r))) live.push(r.name);
  }
  return { ranges, live: live.length === 1 ? live[0]! : JOBS, at: Date.now() };
}

/**
 * Whether a partition holds a job not ended: a queue row (one per job in flight) in its id range,
 * one probe of the queue's primary key; for the default partition (no range), a queue row whose
 * job is in it.
 */
async function inFlight(r: Range) {
  const { rows } = await getPool().query<{ busy: boolean }>(
    r.to === null
      ? `SELECT EXISTS (SELECT 1 FROM "JobQueue" q JOIN "${r.name}" j ON j.id = q."jobId") AS busy`
      : `SELECT EXISTS (SELECT 1 FROM "JobQueue" WHERE ($1::text IS NULL OR "jobId" >= $1) AND "jobId" < $2) AS busy`,
    r.to === null ? [] : [r.from, r.to],
  );
  return rows[0]!.busy;
}

async function current(): Promise<Known> {
  if (known && Date.now() - known.at < TTL_MS) return known;
  loading ??= load()
    .then((k) => (known = k))
    .finally(() => (loading = null));
  return loading;
}

function rangeOf(ranges: Range[], id: string): Range | undefined {
  const inRange = ranges.find((r) => r.to !== null && (r.from === null || r.from <= id) && id < r.to);
  return inRange ?? ranges.find((r) => r.to === null);
}

/** The partition holding every job of `ids`, or the parent table. */
export async function partitionOf(ids: readonly string[]): Promise<string> {
  if (!ids.length || !ids.every((id) => CUID.test(id))) return JOBS;
  const { ranges } = await current();
  const names = new Set(ids.map((id) => rangeOf(ranges, id)?.name ?? JOBS));
  return names.size === 1 ? [...names][0]! : JOBS;
}

/** The one partition that may hold jobs in flight, or the parent table. */
export async function livePartition(): Promise<string> {
  return (await current()).live;
}

/** A job became pending (a NOTIFY): outside the live partition, read the partitions again before the next claim. */
export function notePending(id: string) {
  if (!known || known.live === JOBS) return;
  if (!CUID.test(id) || rangeOf(known.ranges, id)?.name !== known.live) known = null;
}

/** Spans were made or dropped in this process. */
export function forgetPartitions() {
  known = null;
}

/**
 * The partition of `parent` (events, results) that holds the rows of the jobs in `jobTable`: a
 * span's three partitions share their bounds and suffix, so a job's events go to its span's
 * events partition straight, not routed through the parent. The parent for the parent.
 */
export function siblingOf(jobTable: string, parent: "JobEvent" | "AiRuntimeResult"): string {
  return jobTable === JOBS ? parent : `${parent}${jobTable.slice(JOBS.length)}`;
}

/** Runs `run` on `table`; if that partition was dropped meanwhile (42P01), on the parent. */
export async function onPartition<T>(table: string, run: (table: string) => Promise<T>): Promise<T> {
  if (table === JOBS) return run(JOBS);
  try {
    return await run(table);
  } catch (e) {
    if ((e as { code?: string }).code !== "42P01") throw e;
    forgetPartitions();
    return run(JOBS);
  }
}
