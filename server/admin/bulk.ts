import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { AppError } from "../errors";
import { cancelPending, requestCancel } from "../jobs/cancel";
import { rerunJob } from "../jobs/rerun";
import type { Actor } from "../jobs/state-machine";
import { recordAudit } from "./audit";
import type { BulkScope } from "./filter-schema";
import { filterSql } from "./filters";

export type BulkAction = "rerun" | "cancel";

/** One bulk action touches at most this many jobs; a bigger scope must be narrowed first. */
export const BULK_LIMIT = 5_000;
/** Rows per statement (cancel) or per round of re-runs: short transactions, no long row locks. */
const BATCH = 200;

/**
 * Which of the scope's jobs the action applies to: re-run takes failed or cancelled jobs that
 * have no re-run yet (re-run is idempotent per source job, so the others would make nothing);
 * cancel takes pending, locked or running jobs not already asked to stop.
 */
function eligible(action: BulkAction) {
  return action === "rerun"
    ? Prisma.sql`j.status IN ('failed', 'cancelled') AND NOT EXISTS (SELECT 1 FROM "AiRuntimeJob" c WHERE c."retriedFromJobId" = j.id)`
    : Prisma.sql`j.status IN ('pending', 'locked', 'running') AND NOT j."cancelRequested"`;
}

async function scopeSql(scope: BulkScope) {
  if ("ids" in scope) return Prisma.sql`j.id IN (${Prisma.join(scope.ids)})`;
  return filterSql(getDb(), scope.filter);
}

/** The exact set the action would change now, in a stable order (capped one past the limit). */
async function eligibleIds(action: BulkAction, scope: BulkScope): Promise<string[]> {
  const where = await scopeSql(scope);
  const rows = await getDb().$queryRaw<{ id: string }[]>`
    SELECT j.id FROM "AiRuntimeJob" j WHERE ${where} AND ${eligible(action)}
    ORDER BY j."createdAt", j.id LIMIT ${Prisma.raw(String(BULK_LIMIT + 1))}`;
  return rows.map((r) => r.id);
}

/** What a confirmation dialog shows: how many jobs match, how many the action would change, by status. */
export async function previewBulk(action: BulkAction, scope: BulkScope) {
  const db = getDb();
  const where = await scopeSql(scope);
  const byStatus = await db.$queryRaw<{ status: string; n: number }[]>`
    SELECT status::text AS status, count(*)::int AS n FROM (SELECT j.status FROM "AiRuntimeJob" j WHERE ${where} LIMIT 100001) s GROUP BY 1 ORDER BY 1`;
  const ids = await eligibleIds(action, scope);
  return {
    action,
    matched: byStatus.reduce((a, r) => a + r.n, 0),
    byStatus,
    count: Math.min(ids.length, BULK_LIMIT),
    tooMany: ids.length > BULK_LIMIT,
    limit: BULK_LIMIT,
    sampleIds: ids.slice(0, 5),
  };
}

/**
 * Runs the action over the scope in batches. `expectedCount` is the count the admin confirmed:
 * if the scope changed since the preview, nothing is done and the new count is returned with
 * SCOPE_CHANGED, so an admin never acts on more (or other) jobs than they saw.
 */
export async function runBulk(action: BulkAction, scope: BulkScope, expectedCount: number, actor: Actor & { id: string }) {
  const ids = await eligibleIds(action, scope);
  if (ids.length > BULK_LIMIT) throw new AppError("INVALID_REQUEST", `more than ${BULK_LIMIT} jobs; narrow the filter`, { limit: BULK_LIMIT });
  if (ids.length !== expectedCount)
    throw new AppError("SCOPE_CHANGED", `the scope now holds ${ids.length} jobs, not ${expectedCount}; review and confirm again`, { count: ids.length });
  let done = 0;
  const created: string[] = [];
  const errors: { id: string; code: string }[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    if (action === "cancel") done += await cancelBatch(batch, actor);
    else {
      // A few at a time: each re-run is a creation with its own idempotency key.
      for (let k = 0; k < batch.length; k += 10) {
        const answers = await Promise.all(batch.slice(k, k + 10).map((id) => rerunJob(id, actor).catch((e) => (errors.push({ id, code: (e as { code?: string }).code ?? "INTERNAL" }), null))));
        for (const a of answers) {
          if (!a?.created) continue;
          done++;
          created.push(a.job.id);
        }
      }
    }
  }
  await recordAudit({ actorId: actor.id, action: `jobs.bulk_${action}`, scope: { ...scope, confirmed: expectedCount }, count: done });
  return { action, requested: ids.length, done, skipped: ids.length - done, createdJobIds: created.slice(0, 50), errors: errors.slice(0, 20) };
}

/** Pending jobs end cancelled at once; held ones are asked to stop (the Runtime learns it on its next heartbeat). */
async function cancelBatch(ids: string[], actor: Actor) {
  const db = getDb();
  const where = Prisma.sql`j.id IN (${Prisma.join(ids)})`;
  const cancelled = await cancelPending(db, where, actor);
  const asked = await requestCancel(db, Prisma.sql`${where} AND NOT j."cancelRequested"`);
  return cancelled.length + asked.length;
}
