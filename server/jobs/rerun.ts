import { getDb } from "../db";
import { AppError } from "../errors";
import { RERUNNABLE_STATUSES } from "./constants";
import { createJob } from "./create";
import type { Actor } from "./state-machine";

/**
 * Admin re-run: a new job with the old one's input (same snapshot, params, target) linked by
 * retriedFromJobId; the old job is not touched. Only failed or cancelled jobs can be re-run.
 * Re-running is idempotent per source job (key `rerun:<id>`): a double click makes one job, and
 * a re-run that failed in turn is re-run from its own row, which keeps the lineage a chain.
 */
export async function rerunJob(jobId: string, actor: Actor) {
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
    idempotencyKey: `rerun:${old.id}`,
    actor,
  });
}
