import { Prisma } from "../generated/prisma/client";
import type { ActorType, JobStatus } from "../generated/prisma/enums";
import type { DbOrTx } from "../db";
import { countTransitions } from "../observability/metrics";
import { runSql } from "../sql";

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
} as const satisfies Record<string, { from: readonly JobStatus[]; to: readonly JobStatus[] }>;

export type Action = keyof typeof ACTIONS;

export function canStart(action: Action, status: JobStatus): boolean {
  return (ACTIONS[action].from as readonly JobStatus[]).includes(status);
}

export type Actor = { type: ActorType; id: string | null };

/** The columns the services read back after a transition. */
export type JobRow = {
  id: string;
  userId: string;
  jobType: string;
  status: JobStatus;
  fromStatus: JobStatus | null;
  attemptNo: number;
  retryCount: number;
  maxRetryCount: number;
  lockedBy: string | null;
  lockUntil: Date | null;
  runAfter: Date;
  cancelRequested: boolean;
  stage: string | null;
  progress: number;
  snapshotId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  targetType: string;
  targetId: string;
  priority: number;
  params: unknown;
  timeoutSeconds: number;
  apiKeyMode: "platform_key" | "user_deepseek_key";
  modelProvider: string;
  modelName: string;
  promptVersion: string | null;
  outputSchemaVersion: string | null;
  createdAt: Date;
};

export const RETURNING = Prisma.raw(
  `j.id, j."userId", j."jobType"::text AS "jobType", j.status::text AS status, j."attemptNo", j."retryCount",
   j."maxRetryCount", j."lockedBy", j."lockUntil", j."runAfter", j."cancelRequested", j.stage, j.progress,
   j."snapshotId", j."errorCode", j."errorMessage", j."targetType"::text AS "targetType", j."targetId", j.priority,
   j.params, j."timeoutSeconds", j."apiKeyMode"::text AS "apiKeyMode", j."modelProvider", j."modelName",
   j."promptVersion", j."outputSchemaVersion", j."createdAt"`,
);

/** Pushes a job change to listeners (live updates); delivered only if the transaction commits. */
export function notify(alias: string) {
  const a = Prisma.raw(alias);
  return Prisma.sql`(pg_notify('ai_job_events', json_build_object('id', ${a}.id, 'userId', ${a}."userId", 'jobType', ${a}."jobType", 'status', ${a}.status, 'attemptNo', ${a}."attemptNo", 'stage', ${a}.stage, 'progress', ${a}.progress, 'cancelRequested', ${a}."cancelRequested", 'runAfter', ${a}."runAfter")::text)::text = '') AS notified`;
}

export type TransitionSpec = {
  action: Action;
  /** Selects candidate rows, e.g. `j.id = ${id}`; combined with the action's from-statuses. */
  where: Prisma.Sql;
  /** SET assignments after `status = ...`; may reference the row as j. */
  set: Prisma.Sql;
  /** The new status: a literal or a CASE over j. */
  to: Prisma.Sql;
  actor: Actor;
  now: Date;
  /** For batches: ORDER BY ... LIMIT n and SKIP LOCKED. */
  batch?: { orderBy: Prisma.Sql; limit: number };
  /** Event error columns; may reference the updated row as u. */
  eventErrorCode?: Prisma.Sql;
  eventErrorMessage?: Prisma.Sql;
  /** Record `from → expired` before `expired → to` (the sweep). */
  viaExpired?: boolean;
  /** More CTEs after the event insert (e.g. the result row); they may read upd. */
  also?: Prisma.Sql;
  /** More columns for the final SELECT. */
  select?: Prisma.Sql;
};

const NULL = Prisma.sql`NULL`;

/** Inlined (they come from ACTIONS, never from input) so that a generic plan can still prove a partial index's predicate. */
function statusList(list: readonly JobStatus[]) {
  return Prisma.raw(list.map((s) => `'${s}'::"JobStatus"`).join(", "));
}

/**
 * The rows a transition may change, locked. Batches take SKIP LOCKED so concurrent claimers and
 * sweepers get disjoint rows; their LIMIT is inlined because a parameterised LIMIT lets a generic
 * plan prefer a full scan over the partial queue index.
 */
export function candidates(spec: Pick<TransitionSpec, "action" | "where" | "batch">) {
  const lockClause = spec.batch
    ? Prisma.sql`ORDER BY ${spec.batch.orderBy} LIMIT ${Prisma.raw(String(Math.max(1, Math.floor(spec.batch.limit))))} FOR UPDATE SKIP LOCKED`
    : Prisma.sql`FOR UPDATE`;
  return Prisma.sql`SELECT j.id, j.status AS "fromStatus" FROM "AiRuntimeJob" j
      WHERE ${spec.where} AND j.status IN (${statusList(ACTIONS[spec.action].from)})
      ${lockClause}`;
}

/**
 * Runs one compare-and-set transition as a single statement: lock the candidate rows (fenced on
 * status plus the caller's guard), update them, insert a JobEvent per row, and pg_notify.
 * Returns the updated rows with their previous status; an empty array means the guard failed
 * and nothing changed.
 */
export async function transition(db: DbOrTx, spec: TransitionSpec): Promise<JobRow[]> {
  const rows = await runTransition(db, spec);
  countTransitions(rows);
  return rows;
}

function runTransition(db: DbOrTx, spec: TransitionSpec): Promise<JobRow[]> {
  const code = spec.eventErrorCode ?? NULL;
  const message = spec.eventErrorMessage ?? NULL;
  const actorType = Prisma.sql`${spec.actor.type}::"ActorType"`;
  const events = spec.viaExpired
    ? Prisma.sql`
      SELECT u.id, u."fromStatus", 'expired'::text, ${actorType}, ${spec.actor.id}::text, u."attemptNo", 'JOB_TIMEOUT'::text, ${message}::text, ${spec.now}::timestamp(3), 1 FROM upd u WHERE u."fromStatus" <> 'expired'
      UNION ALL
      SELECT u.id, 'expired'::text, u.status, ${actorType}, ${spec.actor.id}::text, u."attemptNo", ${code}::text, ${message}::text, ${spec.now}::timestamp(3), 2 FROM upd u`
    : Prisma.sql`
      SELECT u.id, u."fromStatus", u.status, ${actorType}, ${spec.actor.id}::text, u."attemptNo", ${code}::text, ${message}::text, ${spec.now}::timestamp(3), 1 FROM upd u`;
  return runSql<JobRow>(
    db,
    Prisma.sql`
    WITH target AS (${candidates(spec)}), upd AS (
      UPDATE "AiRuntimeJob" j SET status = ${spec.to}, ${spec.set}, "updatedAt" = ${spec.now}::timestamp(3)
      FROM target t WHERE j.id = t.id
      RETURNING ${RETURNING}, t."fromStatus"::text AS "fromStatus"
    ), ev AS (
      INSERT INTO "JobEvent" ("jobId", "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "errorCode", "errorMessage", "createdAt")
      SELECT id, "fromStatus"::"JobStatus", "toStatus"::"JobStatus", "actorType", "actorId", "attemptNo", "errorCode", "errorMessage", "createdAt"
      FROM (${events}) AS e(id, "fromStatus", "toStatus", "actorType", "actorId", "attemptNo", "errorCode", "errorMessage", "createdAt", seq)
      WHERE e."fromStatus" IS DISTINCT FROM e."toStatus"
      ORDER BY id, seq
    )${spec.also ? Prisma.sql`, ${spec.also}` : Prisma.empty}
    SELECT upd.*, ${notify("upd")}${spec.select ? Prisma.sql`, ${spec.select}` : Prisma.empty}
    FROM upd`,
  );
}
