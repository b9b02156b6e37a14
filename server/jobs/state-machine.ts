import { Prisma, type AiRuntimeJob } from "../generated/prisma/client";
import type { ActorType, JobStatus } from "../generated/prisma/enums";
import { jobChangeSql } from "./job-change";
import type { DbOrTx } from "../db";
import { countTransitions } from "../observability/metrics";
import { tracingOn } from "../observability/tracing";
import { traceTransitions } from "../observability/job-spans";
import { runSql } from "../sql";
import { statusList } from "./status-sql";
import { JOBS, siblingOf } from "./job-partition";
import { IN_FLIGHT_STATUSES } from "./constants";

/**
 * The one state machine. Each action names the statuses it may start from; the SQL below is
 * the only code that writes AiRuntimeJob.status (creation aside), and it always writes the
 * JobEvent and the LISTEN/NOTIFY push in the same statement, so they commit together or not at all.
 * A heartbeat that leaves the status unchanged writes no event.
 */
export const ACTIONS = {
  lock: { from: ["pending"], to: ["locked"] },
  claim: { from: ["pending"], to: ["locked"] },
  /** Heartbeat: the first one moves locked → running; later ones only extend the lease. */
  heartbeat: { from: ["locked", "running"], to: ["running"] },
  succeed: { from: ["locked", "running"], to: ["succeeded"] },
  fail: { from: ["locked", "running"], to: ["pending", "failed", "cancelled"] },
  cancelPending: { from: ["pending"], to: ["cancelled"] },
  /** Not a status change: the Runtime learns it on its next heartbeat. */
  requestCancel: { from: ["locked", "running"], to: [] },
  /** Lease passed or execution timeout: expired, then pending / failed (or cancelled if asked to stop). */
  expire: { from: ["locked", "running", "expired"], to: ["pending", "failed", "cancelled"] },
  /**
   * The key holding the lease was revoked, or its scopes no longer cover the job (docs/contract.md#consent-credentials-and-cancellation): the
   * lease ends at once, the job goes back to pending for another Runtime (no retry spent: the job
   * did nothing wrong), or ends cancelled if cancel was asked.
   */
  keyLost: { from: ["locked", "running"], to: ["pending", "cancelled"] },
  /** Erasure (server/learners/erase.ts): every job still in flight ends cancelled at once, held or not. */
  eraseCancel: { from: ["pending", "locked", "running", "expired"], to: ["cancelled"] },
} as const satisfies Record<string, { from: readonly JobStatus[]; to: readonly JobStatus[] }>;

export type Action = keyof typeof ACTIONS;

export type Actor = { type: ActorType; id: string | null };

/** Who spends a learner's quota and token budget: the learner, and the platform API acting for them (docs/contract.md#learners-and-their-data). */
export const spendsQuota = (actor: Actor) => actor.type === "learner" || actor.type === "platform";

/**
 * The job columns a transition reads back: one list, checked against the Prisma model, gives both
 * the RETURNING clause and the JobRow type. Enum columns leave as text (their values are the
 * enum's names, so the model's types still hold).
 */
const RETURNED = [
  "id",
  "userId",
  "jobType",
  "status",
  "attemptNo",
  "retryCount",
  "maxRetryCount",
  "lockedBy",
  "lockUntil",
  "runAfter",
  "cancelRequested",
  "stage",
  "progress",
  "snapshotId",
  "errorCode",
  "errorMessage",
  "targetType",
  "targetId",
  "priority",
  "params",
  "timeoutSeconds",
  "apiKeyMode",
  "modelProvider",
  "modelName",
  "promptVersion",
  "outputSchemaVersion",
  "locale",
  "createdAt",
  "traceparent",
  "queueTurn",
  "leaseCheckAt",
] as const satisfies readonly (keyof AiRuntimeJob)[];
const ENUM_COLUMNS: ReadonlySet<string> = new Set([
  "jobType",
  "status",
  "targetType",
  "apiKeyMode",
] satisfies (keyof AiRuntimeJob)[]);

/** A job row after a transition, with the status it had before (null when it had none). */
export type JobRow = Pick<AiRuntimeJob, (typeof RETURNED)[number]> & { fromStatus: JobStatus | null };

export const RETURNING = Prisma.raw(
  RETURNED.map((c) => (ENUM_COLUMNS.has(c) ? `j."${c}"::text AS "${c}"` : `j."${c}"`)).join(", "),
);

/** Pushes a job change to listeners (live updates); delivered only if the transaction commits. */
export const notify = jobChangeSql;

export type TransitionSpec = {
  action: Action;
  /** Selects candidate rows, e.g. `j.id = ${id}`; combined with the action's from-statuses. */
  where: Prisma.Sql;
  /**
   * The new status, computed once per row when it is locked: a literal, or attemptEnd(retry).
   * SET assignments read it as t."toStatus" instead of repeating the rule.
   */
  to: Prisma.Sql;
  /** SET assignments after `status = ...`; may reference the row as j and its target as t."toStatus". */
  set: Prisma.Sql;
  actor: Actor;
  now: Date;
  /** For batches: ORDER BY ... LIMIT n and SKIP LOCKED. */
  batch?: { orderBy: Prisma.Sql; limit: number };
  /**
   * Candidates found through the queue (JobQueue, one row per job in flight): a condition on the
   * job's queue row q, read by the queue's indexes (pending order, lease check times); `where` and
   * `batch.orderBy` may name q too. Only the job row is locked; the statement's `queue` and
   * `dequeue` CTEs then keep q (transitionCtes).
   */
  queue?: Prisma.Sql;
  /** Event error columns; may reference the updated row as u. */
  eventErrorCode?: Prisma.Sql;
  eventErrorMessage?: Prisma.Sql;
  /** Record `from → expired` (JOB_TIMEOUT) before `expired → to`: the sweep's two events per lease. */
  viaExpired?: boolean;
  /** More CTEs written in the same statement (the result row, usage, a rejection); they may read upd. */
  extraCtes?: Prisma.Sql;
  /** More columns for the rows returned, read from those CTEs. */
  extraColumns?: Prisma.Sql;
  /** The job table's partition to read and write (server/jobs/job-partition.ts); the parent by default. */
  table?: string;
  /**
   * The job columns to hand back (besides COUNTED), when the caller needs few: each column of each
   * row is PostgreSQL's to format and the app's to parse. All of RETURNED by default.
   */
  returned?: readonly (keyof JobRow)[];
};

/** The columns every transition hands back: what countTransitions and the job's spans read, and the row's id. */
export const COUNTED = [
  "id",
  "status",
  "fromStatus",
  "errorCode",
  "traceparent",
] as const satisfies readonly (keyof JobRow)[];

const NULL = Prisma.sql`NULL`;

/** The table a transition names: the job table, or one of its partitions. */
function jobTableName(spec: Pick<TransitionSpec, "table">) {
  const name = spec.table ?? JOBS;
  if (!/^AiRuntimeJob(_\w+)?$/.test(name)) throw new Error(`not a job table: ${name}`);
  return name;
}

const jobTable = (spec: Pick<TransitionSpec, "table">) => Prisma.raw(`"${jobTableName(spec)}"`);
/** Where the events of the transition's jobs go: their span's partition when it names one (siblingOf). */
const eventTable = (spec: Pick<TransitionSpec, "table">) =>
  Prisma.raw(`"${siblingOf(jobTableName(spec), "JobEvent")}"`);

/**
 * How an attempt ends (a Runtime's failure, a passed lease), named once: a job asked to cancel
 * ends cancelled; otherwise it goes back to pending while `retry` holds, else it fails.
 */
export function attemptEnd(retry: Prisma.Sql) {
  return Prisma.sql`CASE WHEN j."cancelRequested" THEN 'cancelled' WHEN ${retry} THEN 'pending' ELSE 'failed' END`;
}

/**
 * The columns every attempt end sets, from the target attemptEnd() computed: a retry counts and
 * waits until `retryAt`; an end is finished at `at` (its runAfter set to `endRunAfter`); the lease is released.
 */
export function attemptEndSet(at: Date, retryAt: Prisma.Sql, endRunAfter: Prisma.Sql) {
  return Prisma.sql`"retryCount" = j."retryCount" + CASE WHEN t."toStatus" = 'pending' THEN 1 ELSE 0 END,
      "runAfter" = CASE WHEN t."toStatus" = 'pending' THEN ${retryAt} ELSE ${endRunAfter} END,
      "finishedAt" = CASE WHEN t."toStatus" = 'pending' THEN NULL ELSE ${at}::timestamp(3) END,
      "lockedBy" = NULL, "lockUntil" = NULL, "leaseCheckAt" = NULL`;
}

/**
 * The rows a transition may change, locked, with the status each goes to. Batches take SKIP
 * LOCKED so concurrent claimers and sweepers get disjoint rows; their LIMIT is inlined because a
 * parameterised LIMIT lets a generic plan prefer a full scan over the partial queue index.
 */
export function candidates(spec: Pick<TransitionSpec, "action" | "where" | "batch" | "to" | "table" | "queue">) {
  const lockClause = spec.batch
    ? Prisma.sql`ORDER BY ${spec.batch.orderBy} LIMIT ${Prisma.raw(String(Math.max(1, Math.floor(spec.batch.limit))))} FOR UPDATE OF j SKIP LOCKED`
    : Prisma.sql`FOR UPDATE OF j`;
  const from = spec.queue
    ? Prisma.sql`"JobQueue" q JOIN ${jobTable(spec)} j ON j.id = q."jobId" WHERE ${spec.queue} AND`
    : Prisma.sql`${jobTable(spec)} j WHERE`;
  return Prisma.sql`SELECT j.id, j.status AS "fromStatus", (${spec.to})::"JobStatus" AS "toStatus" FROM ${from}
      ${spec.where} AND j.status IN (${statusList(ACTIONS[spec.action].from)})
      ${lockClause}`;
}

/**
 * Runs one compare-and-set transition as a single statement: lock the candidate rows (fenced on
 * status plus the caller's guard), update them, insert a JobEvent per row, and pg_notify.
 * Returns the updated rows with their previous status; an empty array means the guard failed
 * and nothing changed.
 *
 * `before` is a second transition run in the same statement, on rows the first cannot touch
 * (claim and poll end passed leases this way: docs/contract.md#states-and-transitions, correctness never waits for the sweep).
 * Its rows get their events and pushes too; they are counted, not returned. The two candidate
 * sets must be disjoint (different from-statuses), and `before` may not add CTEs or columns.
 * `on: "claims"` runs it on the claim pool (server/db.ts getClaimPool).
 * With traces on, each changed row gets a span in its job's trace; after a claim or lock the row's
 * `traceparent` is that span's, the context the lease hands the Runtime (job-spans.ts).
 */
export async function transition(
  db: DbOrTx,
  spec: TransitionSpec,
  before?: TransitionSpec,
  on?: "claims",
): Promise<JobRow[]> {
  const started = tracingOn() ? Date.now() : 0;
  const rows = await runSql<JobRow & { prelude?: boolean }>(db, transitionSql(spec, before), on);
  countTransitions(rows);
  if (started) traceTransitions(rows, (row) => (row.prelude ? before! : spec), started);
  return before ? rows.filter((r) => !r.prelude).map(({ prelude: _, ...row }) => row) : rows;
}

/**
 * The events of each updated row u, as (step, from, to, error code): one step, or for the sweep
 * two — `from → expired` then `expired → to`. A step that does not change the status (a
 * heartbeat that keeps running, a row already expired) writes no event.
 */
function eventSteps(spec: TransitionSpec) {
  const code = Prisma.sql`(${spec.eventErrorCode ?? NULL})::text`;
  return spec.viaExpired
    ? Prisma.sql`(VALUES (1, u."fromStatus", 'expired', 'JOB_TIMEOUT'), (2, 'expired', u.status, ${code}))`
    : Prisma.sql`(VALUES (1, u."fromStatus", u.status, ${code}))`;
}

/**
 * One transition's CTEs — `<p>target` (rows locked), `<p>upd` (rows written), `<p>queue` and
 * `<p>dequeue` (their queue rows kept), `<p>ev` (their events). The job row's `queueSeq` moves, so
 * its trigger, which keeps the queue row for every other writer, leaves this statement's rows to
 * the set-based `<p>queue` and `<p>dequeue` (prisma/migrations/…_job_queue).
 */
function transitionCtes(spec: TransitionSpec, p: string) {
  const [target, upd, ev, queue, dequeue] = ["target", "upd", "ev", "queue", "dequeue"].map((n) =>
    Prisma.raw(`${p}${n}`),
  );
  return Prisma.sql`${target} AS (${candidates(spec)}), ${upd} AS (
      UPDATE ${jobTable(spec)} j SET status = t."toStatus", ${spec.set}, "updatedAt" = ${spec.now}::timestamp(3),
        "queueSeq" = j."queueSeq" + 1
      FROM ${target} t WHERE j.id = t.id
      RETURNING ${RETURNING}, t."fromStatus"::text AS "fromStatus"
    ), ${queue} AS (
      UPDATE "JobQueue" q SET status = u.status::"JobStatus", priority = u.priority, "queueTurn" = u."queueTurn",
        "leaseCheckAt" = u."leaseCheckAt"
      FROM ${upd} u WHERE q."jobId" = u.id AND u.status IN (${statusList(IN_FLIGHT_STATUSES)})
        AND (q.status::text, q."leaseCheckAt", q.priority, q."queueTurn") IS DISTINCT FROM (u.status, u."leaseCheckAt", u.priority, u."queueTurn")
    ), ${dequeue} AS (
      DELETE FROM "JobQueue" q USING ${upd} u WHERE q."jobId" = u.id AND u.status NOT IN (${statusList(IN_FLIGHT_STATUSES)})
    ), ${ev} AS (
      INSERT INTO ${eventTable(spec)} ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "errorCode", "errorMessage", "createdAt")
      SELECT u.id, step."from"::"JobStatus", step."to"::"JobStatus", ${spec.actor.type}::"ActorType", ${spec.actor.id}::text,
        u."attemptNo", step."errorCode", (${spec.eventErrorMessage ?? NULL})::text, ${spec.now}::timestamp(3)
      FROM ${upd} u CROSS JOIN LATERAL ${eventSteps(spec)} AS step(n, "from", "to", "errorCode")
      WHERE step."from" IS DISTINCT FROM step."to"
      ORDER BY u.id, step.n
    )`;
}

/** The prefix of a `before` transition's CTEs (see transition). */
export const BEFORE = "lost_";

/** A `before` transition's CTEs, for a statement that is not itself a transition (poll); its rows are `lost_upd`. */
export function beforeCtes(spec: TransitionSpec) {
  if (spec.extraCtes || spec.extraColumns) throw new Error("a transition run before another adds no CTEs or columns");
  return transitionCtes(spec, BEFORE);
}

/** The statement transition() runs (exported for the plan tests). */
export function transitionSql(spec: TransitionSpec, before?: TransitionSpec): Prisma.Sql {
  if (before && (before.extraCtes || before.extraColumns || spec.extraColumns || spec.returned))
    throw new Error("a transition run before another adds no CTEs or columns");
  const extra = spec.extraCtes ? Prisma.sql`, ${spec.extraCtes}` : Prisma.empty;
  const main = Prisma.sql`SELECT ${returnedColumns(spec)}, ${notify("upd")}${spec.extraColumns ? Prisma.sql`, ${spec.extraColumns}` : Prisma.empty}`;
  if (!before)
    return Prisma.sql`WITH ${transitionCtes(spec, "")}${extra}
    ${main} FROM upd`;
  return Prisma.sql`WITH ${transitionCtes(before, BEFORE)}, ${transitionCtes(spec, "")}${extra}
    ${main}, FALSE AS prelude FROM upd
    UNION ALL SELECT ${Prisma.raw(BEFORE)}upd.*, ${notify(`${BEFORE}upd`)}, TRUE AS prelude FROM ${Prisma.raw(BEFORE)}upd`;
}

/** The columns a transition hands back: all of RETURNED, or the spec's own list and the counted ones. */
function returnedColumns(spec: TransitionSpec) {
  if (!spec.returned) return Prisma.sql`upd.*`;
  const names = new Set<string>([...COUNTED, ...spec.returned]);
  return Prisma.raw([...names].map((c) => `upd."${c}"`).join(", "));
}
