import { recordAudit } from "../audit";
import { getDb } from "../db";
import { AppError } from "../errors";
import { RERUNNABLE_STATUSES } from "./constants";
import { createJob } from "./create";
import { DEFAULT_LOCALE, isLocale } from "../i18n/locales";
import type { Actor } from "./state-machine";

/**
 * Admin re-run: a new job with the old one's input (same snapshot, params, target) linked by
 * retriedFromJobId; the old job is not touched. Only failed or cancelled jobs can be re-run.
 * Re-running is idempotent per source job (key `rerun:<id>`): a double click makes one job, and
 * a re-run that failed in turn is re-run from its own row, which keeps the lineage a chain.
 * An admin's re-run is audited in the creating transaction; a bulk run passes `audited: false`,
 * since its one audit row carries the final count.
 */
export async function rerunJob(jobId: string, actor: Actor, opts: { audited?: boolean } = {}) {
  const old = await getDb().aiRuntimeJob.findUnique({ where: { id: jobId } });
  if (!old) throw new AppError("JOB_NOT_FOUND", `job ${jobId} not found`);
  if (!RERUNNABLE_STATUSES.includes(old.status))
    throw new AppError("JOB_NOT_RERUNNABLE", `only failed or cancelled jobs can be re-run; this one is ${old.status}`, {
      status: old.status,
    });
  return createJob({
    userId: old.userId,
    jobType: old.jobType,
    target: { type: old.targetType, id: old.targetId },
    params: old.params,
    priority: old.priority,
    apiKeyMode: old.apiKeyMode,
    maxRetryCount: old.maxRetryCount,
    timeoutSeconds: old.timeoutSeconds,
    snapshotId: old.snapshotId ?? undefined,
    retriedFromJobId: old.id,
    // In the language the old job was produced in, whatever the learner has chosen since.
    locale: isLocale(old.locale) ? old.locale : DEFAULT_LOCALE,
    idempotencyKey: `rerun:${old.id}`,
    actor,
    alsoInTransaction:
      actor.type === "admin" && opts.audited !== false
        ? (tx, newJobId) =>
            recordAudit(
              { actorId: actor.id ?? "admin", action: "job.rerun", scope: { jobId: old.id, newJobId }, count: 1 },
              tx,
            )
        : undefined,
  });
}
