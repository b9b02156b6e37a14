import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { recordAudit } from "../audit";
import { AppError } from "../errors";
import { CANCELLABLE_STATUSES, RERUNNABLE_STATUSES } from "../jobs/constants";
import type { BulkScope } from "./filter-schema";
import { filterSql, statusSql } from "./filters";

export type BulkAction = "rerun" | "cancel";

/**
 * Which of the scope's jobs the action applies to: re-run takes failed or cancelled jobs that
 * have no re-run yet (re-run is idempotent per source job, so the others would make nothing);
 * cancel takes pending, locked or running jobs not already asked to stop. The statuses are read
 * as the explorer reads them (statusSql): ended ones from the errors indexes, live ones from the queue table.
 */
export function eligibleSql(action: BulkAction) {
  return action === "rerun"
    ? Prisma.sql`${statusSql(RERUNNABLE_STATUSES)}
        AND NOT EXISTS (SELECT 1 FROM "AiRuntimeJob" c WHERE c."retriedFromJobId" = j.id)`
    : Prisma.sql`${statusSql(CANCELLABLE_STATUSES)} AND NOT j."cancelRequested"`;
}

export async function scopeSql(scope: BulkScope) {
  if ("ids" in scope) return Prisma.sql`j.id IN (${Prisma.join(scope.ids)})`;
  return filterSql(getDb(), scope.filter);
}

/** The exact number of jobs the action would change now: no cap, since a bulk run has no size limit. */
async function eligibleCount(action: BulkAction, scope: BulkScope, before?: Date): Promise<number> {
  const where = await scopeSql(scope);
  const bound = before ? Prisma.sql`AND j."createdAt" <= ${before}::timestamp(3)` : Prisma.empty;
  const [row] = await getDb().$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM "AiRuntimeJob" j WHERE ${where} AND ${eligibleSql(action)} ${bound}`;
  return row?.n ?? 0;
}

/** What a confirmation dialog shows: how many jobs match, exactly how many the action would change, by status. */
export async function previewBulk(action: BulkAction, scope: BulkScope) {
  const db = getDb();
  const where = await scopeSql(scope);
  const [byStatus, count, sample] = await Promise.all([
    db.$queryRaw<{ status: string; n: number }[]>`
      SELECT status::text AS status, count(*)::int AS n FROM "AiRuntimeJob" j WHERE ${where} GROUP BY 1 ORDER BY 1`,
    eligibleCount(action, scope),
    db.$queryRaw<{ id: string }[]>`
      SELECT j.id FROM "AiRuntimeJob" j WHERE ${where} AND ${eligibleSql(action)} ORDER BY j."createdAt", j.id LIMIT 5`,
  ]);
  return {
    action,
    matched: byStatus.reduce((a, r) => a + r.n, 0),
    byStatus,
    count,
    sampleIds: sample.map((r) => r.id),
  };
}

export type BulkRunView = {
  id: string;
  actorId: string;
  action: BulkAction;
  scope: unknown;
  status: "running" | "done" | "cancelled";
  total: number;
  processed: number;
  affected: number;
  errors: number;
  cancelRequested: boolean;
  paused: boolean;
  message: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
};

const VIEW = Prisma.raw(
  `id, "actorId", action, scope, status, total, processed, affected, errors, "cancelRequested", paused, message, "createdAt", "updatedAt", "finishedAt"`,
);

/**
 * Starts a bulk action in the background. `expectedCount` is the count the admin confirmed: if
 * the scope changed since the preview, nothing starts and the new count is returned with
 * SCOPE_CHANGED. The run covers jobs created up to now only, so its total stays exact while new
 * jobs keep arriving; the BulkRun row is its progress, and the runner works it in batches.
 * With `paused`, it starts held: nothing runs until it is resumed or run one batch at a time.
 */
export async function startBulkRun(
  action: BulkAction,
  scope: BulkScope,
  expectedCount: number,
  actorId: string,
  opts: { paused?: boolean } = {},
): Promise<BulkRunView> {
  const at = now();
  const total = await eligibleCount(action, scope, at);
  if (total !== expectedCount)
    throw new AppError(
      "SCOPE_CHANGED",
      `the scope now holds ${total} jobs, not ${expectedCount}; review and confirm again`,
      { count: total },
    );
  const [row] = await getDb().$queryRaw<BulkRunView[]>`
    INSERT INTO "BulkRun" (id, "actorId", action, scope, total, paused, "createdAt", "updatedAt")
    VALUES (gen_random_uuid()::text, ${actorId}, ${action}, ${JSON.stringify(scope)}::jsonb, ${total}, ${opts.paused ?? false}, ${at}::timestamp(3), ${at}::timestamp(3))
    RETURNING ${VIEW}`;
  return row!;
}

/** Asks a running bulk action to stop; the runner ends it after the batch in hand (nothing half-done). */
export async function cancelBulkRun(id: string): Promise<BulkRunView> {
  const [row] = await getDb().$queryRaw<BulkRunView[]>`
    UPDATE "BulkRun" SET "cancelRequested" = true, "updatedAt" = ${now()}::timestamp(3)
    WHERE id = ${id} AND status = 'running' RETURNING ${VIEW}`;
  if (row) return row;
  const existing = await getBulkRun(id);
  throw new AppError("INVALID_REQUEST", `bulk run is already ${existing.status}`, { status: existing.status });
}

/**
 * Holds or releases a running bulk action, audited in the same transaction. The update waits for
 * the row lock a batch in hand holds, so a pause lands at a batch boundary: its answer is the
 * exact state the run stopped at, and no further batch starts until it is resumed.
 */
export async function setBulkRunPaused(id: string, paused: boolean, actorId: string): Promise<BulkRunView> {
  const row = await getDb().$transaction(async (tx) => {
    const [updated] = await tx.$queryRaw<BulkRunView[]>`
      UPDATE "BulkRun" SET paused = ${paused}, "updatedAt" = ${now()}::timestamp(3)
      WHERE id = ${id} AND status = 'running' AND NOT "cancelRequested" RETURNING ${VIEW}`;
    if (updated)
      await recordAudit(
        {
          actorId,
          action: paused ? "jobs.bulk_pause" : "jobs.bulk_resume",
          scope: { bulkRunId: id, processed: updated.processed, total: updated.total },
          count: 0,
        },
        tx,
      );
    return updated;
  });
  if (row) return row;
  const existing = await getBulkRun(id);
  throw new AppError(
    "INVALID_REQUEST",
    existing.status === "running" ? "bulk run is being stopped" : `bulk run is already ${existing.status}`,
    { status: existing.status },
  );
}

export async function getBulkRun(id: string): Promise<BulkRunView> {
  const [row] = await getDb().$queryRaw<BulkRunView[]>`SELECT ${VIEW} FROM "BulkRun" WHERE id = ${id}`;
  if (!row) throw new AppError("NOT_FOUND", `bulk run ${id} not found`);
  return row;
}

/** The newest bulk runs, for the console's list. */
export async function listBulkRuns(limit: number): Promise<BulkRunView[]> {
  return getDb().$queryRaw<
    BulkRunView[]
  >`SELECT ${VIEW} FROM "BulkRun" ORDER BY "createdAt" DESC, id DESC LIMIT ${Math.max(1, Math.min(100, limit))}`;
}
