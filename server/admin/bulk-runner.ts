import { Prisma } from "../generated/prisma/client";
import { bulkConfig } from "../config";
import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";
import { cancelPending, requestCancel } from "../jobs/cancel";
import { rerunJob } from "../jobs/rerun";
import { inBatchSpan } from "../observability/job-spans";
import { recordAudit } from "../audit";
import { AppError } from "../errors";
import {
  cancelBulkRun,
  eligibleSql,
  getBulkRun,
  scopeSql,
  setBulkRunPaused,
  startBulkRun,
  type BulkAction,
} from "./bulk";
import type { BulkScope } from "./filter-schema";

type RunRow = {
  id: string;
  actorId: string;
  action: BulkAction;
  scope: BulkScope;
  total: number;
  processed: number;
  affected: number;
  errors: number;
  cancelRequested: boolean;
  paused: boolean;
  createdAt: Date;
  cursorCreatedAt: Date | null;
  cursorId: string | null;
};

export type BatchOutcome = "batch" | "done" | "cancelled" | "busy" | "finished" | "paused";

/**
 * One batch of a bulk run, in one transaction that holds the run's row (FOR UPDATE SKIP LOCKED):
 * two runners, in one process or several, never work the same run at once, and a batch's job
 * changes commit together with the progress and cursor that count them, so a crash mid-run
 * neither loses nor repeats work. A cancel request ends the run before the next batch; a paused
 * run starts no batch, unless `step` (an admin running one batch by hand) asks for exactly one.
 */
export async function runBulkBatch(id: string, opts: { step?: boolean } = {}): Promise<BatchOutcome> {
  return getDb().$transaction(
    async (tx) => {
      const [run] = await tx.$queryRaw<RunRow[]>`
        SELECT id, "actorId", action, scope, total, processed, affected, errors, "cancelRequested", paused, "createdAt", "cursorCreatedAt", "cursorId"
        FROM "BulkRun" WHERE id = ${id} AND status = 'running' FOR UPDATE SKIP LOCKED`;
      if (!run) {
        const exists = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM "BulkRun" WHERE id = ${id}`;
        return exists[0]?.status === "running" ? "busy" : "finished";
      }
      if (run.cancelRequested) return finish(tx, run, "cancelled", `cancelled after ${run.processed} of ${run.total}`);
      if (run.paused && !opts.step) return "paused";

      const where = await scopeSql(run.scope);
      const after =
        run.cursorCreatedAt && run.cursorId
          ? Prisma.sql`AND (j."createdAt", j.id) > (${run.cursorCreatedAt}::timestamp(3), ${run.cursorId})`
          : Prisma.empty;
      // Jobs created after the run started are outside it: that keeps the confirmed total exact.
      const batch = await tx.$queryRaw<{ id: string; createdAt: Date }[]>`
        SELECT j.id, j."createdAt" FROM "AiRuntimeJob" j
        WHERE ${where} AND ${eligibleSql(run.action)} AND j."createdAt" <= ${run.createdAt}::timestamp(3) ${after}
        ORDER BY j."createdAt", j.id LIMIT ${Prisma.raw(String(Math.max(1, Math.floor(bulkConfig.batchSize))))}`;
      if (!batch.length) {
        const left = run.total - run.processed;
        return finish(tx, run, "done", left > 0 ? `${left} job(s) no longer needed it when their turn came` : null);
      }
      const ids = batch.map((b) => b.id);
      const actor = { type: "admin" as const, id: run.actorId };
      const { affected, errors } =
        run.action === "cancel" ? await cancelBatch(tx, ids, actor) : await rerunBatch(ids, actor);
      const last = batch.at(-1)!;
      await tx.$executeRaw`
        UPDATE "BulkRun" SET processed = processed + ${batch.length}, affected = affected + ${affected}, errors = errors + ${errors},
          "cursorCreatedAt" = ${last.createdAt}::timestamp(3), "cursorId" = ${last.id}, "updatedAt" = ${now()}::timestamp(3)
        WHERE id = ${id}`;
      return "batch";
    },
    { timeout: 120_000, maxWait: 10_000 },
  );
}

/** Works a run batch after batch until it ends (or another runner holds it). */
export async function processBulkRun(id: string, opts: { maxBatches?: number } = {}): Promise<BatchOutcome> {
  let outcome: BatchOutcome = "batch";
  for (let n = 0; outcome === "batch" && n < (opts.maxBatches ?? Infinity); n++) {
    if (n > 0 && bulkConfig.batchPauseMs > 0) await new Promise((r) => setTimeout(r, bulkConfig.batchPauseMs));
    outcome = await runBulkBatch(id);
  }
  return outcome;
}

/**
 * Runs exactly one batch of a paused run, by hand, and answers the run as that batch left it
 * (audited). The last batch ends the run as usual; a run that is not paused is refused, since
 * its runner is already working it.
 */
export async function stepBulkRun(id: string, actorId: string) {
  const run = await getBulkRun(id);
  if (run.status !== "running" || !run.paused || run.cancelRequested)
    throw new AppError(
      "INVALID_REQUEST",
      run.status !== "running"
        ? `bulk run is already ${run.status}`
        : "only a paused bulk run is run one batch at a time",
      { status: run.status },
    );
  let outcome = await runBulkBatch(id, { step: true });
  // A run whose last batch just went through ends now, not at the next resume.
  if (outcome === "batch") {
    const after = await getBulkRun(id);
    if (after.processed >= after.total) outcome = await runBulkBatch(id, { step: true });
  }
  if (outcome === "busy") throw new AppError("INVALID_REQUEST", "a batch of this run is already in hand; try again");
  const after = await getBulkRun(id);
  await recordAudit({
    actorId,
    action: "jobs.bulk_step",
    scope: { bulkRunId: id, processed: after.processed, total: after.total, status: after.status },
    count: after.affected - run.affected,
  });
  return after;
}

/** Holds a run at its next batch boundary, or lets it go on (see setBulkRunPaused). */
export async function pauseBulkRun(id: string, paused: boolean, actorId: string) {
  const run = await setBulkRunPaused(id, paused, actorId);
  if (!paused) kickBulkRun(id);
  return run;
}

/** Every run still running, oldest first: what the scheduler tick and the Inngest cron call (crash recovery). */
export async function processPendingBulkRuns() {
  const runs = await getDb().$queryRaw<
    { id: string }[]
  >`SELECT id FROM "BulkRun" WHERE status = 'running' ORDER BY "createdAt"`;
  const outcomes: Record<string, BatchOutcome> = {};
  for (const r of runs) outcomes[r.id] = await inBulkLane(() => processBulkRun(r.id));
  return outcomes;
}

/**
 * One bulk run at a time per process (each batch holds a connection for its transaction): runs
 * launched together, or by the scheduler meanwhile, wait their turn instead of taking a
 * connection each, so however many an admin starts, the pool keeps the rest for everyone else.
 */
let bulkLane: Promise<unknown> = Promise.resolve();
function inBulkLane<T>(work: () => Promise<T>): Promise<T> {
  const turn = bulkLane.then(work, work);
  bulkLane = turn.catch(() => {});
  return turn;
}

/** The run ends with its final count in the audit log, in the same transaction as its status. */
async function finish(
  tx: DbOrTx,
  run: RunRow,
  status: "done" | "cancelled",
  message: string | null,
): Promise<BatchOutcome> {
  const at = now();
  await tx.$executeRaw`
    UPDATE "BulkRun" SET status = ${status}, message = ${message}, "finishedAt" = ${at}::timestamp(3), "updatedAt" = ${at}::timestamp(3)
    WHERE id = ${run.id}`;
  await recordAudit(
    {
      actorId: run.actorId,
      action: `jobs.bulk_${run.action}`,
      scope: { ...run.scope, bulkRunId: run.id, confirmed: run.total, processed: run.processed, status },
      count: run.affected,
    },
    tx,
  );
  return status;
}

/** Pending jobs end cancelled at once; held ones are asked to stop (the Runtime learns it on its next heartbeat). */
async function cancelBatch(tx: DbOrTx, ids: string[], actor: { type: "admin"; id: string }) {
  const where = Prisma.sql`j.id IN (${Prisma.join(ids)})`;
  const cancelled = await cancelPending(tx, where, actor);
  const asked = await requestCancel(tx, Prisma.sql`${where} AND NOT j."cancelRequested"`);
  return { affected: cancelled.length + asked.length, errors: 0 };
}

/**
 * A few at a time: each re-run is a creation with its own idempotency key (`rerun:<id>`), so a repeat
 * makes nothing. Traced as a batch: each new job a trace of its own, linked to the batch's span.
 */
function rerunBatch(ids: string[], actor: { type: "admin"; id: string }) {
  return inBatchSpan("bulk_rerun", { "bulk.jobs": ids.length }, () => rerunEach(ids, actor));
}

async function rerunEach(ids: string[], actor: { type: "admin"; id: string }) {
  let affected = 0;
  let errors = 0;
  for (let k = 0; k < ids.length; k += 10) {
    const answers = await Promise.all(
      ids.slice(k, k + 10).map((id) => rerunJob(id, actor, { audited: false }).catch(() => (errors++, null))),
    );
    affected += answers.filter((a) => a?.created).length;
  }
  return { affected, errors };
}

/** Starts a confirmed bulk action (see startBulkRun) and begins working it at once. */
export async function launchBulkRun(...args: Parameters<typeof startBulkRun>) {
  const run = await startBulkRun(...args);
  kickBulkRun(run.id);
  return run;
}

/** Asks a run to stop; a runner ends it after the batch in hand, with its final audited count. */
export async function stopBulkRun(id: string) {
  const run = await cancelBulkRun(id);
  kickBulkRun(run.id);
  return run;
}

/**
 * Starts working a run right away, off the request: the admin sees progress within a batch. If
 * this process dies, the scheduler (or the Inngest cron) picks the run up from its cursor.
 */
export function kickBulkRun(id: string) {
  void inBulkLane(() => processBulkRun(id)).catch((e) =>
    console.error(`[bulk] run ${id} paused by an error; the scheduler resumes it:`, (e as Error).message),
  );
}
