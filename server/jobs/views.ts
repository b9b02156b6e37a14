import type { AiRuntimeJob } from "../generated/prisma/client";

/**
 * What leaves the domain about a job: no credential id, no input hash. The tRPC layer and the
 * Runtime contract both shape their answers from this.
 */
export function toJobView(job: AiRuntimeJob & { result?: { id: string } | null }) {
  return {
    id: job.id,
    userId: job.userId,
    jobType: job.jobType,
    targetType: job.targetType,
    targetId: job.targetId,
    snapshotId: job.snapshotId,
    status: job.status,
    priority: job.priority,
    idempotencyKey: job.idempotencyKey,
    apiKeyMode: job.apiKeyMode,
    modelProvider: job.modelProvider,
    modelName: job.modelName,
    promptVersion: job.promptVersion,
    outputSchemaVersion: job.outputSchemaVersion,
    params: job.params as Record<string, unknown>,
    attemptNo: job.attemptNo,
    retryCount: job.retryCount,
    maxRetryCount: job.maxRetryCount,
    timeoutSeconds: job.timeoutSeconds,
    retriedFromJobId: job.retriedFromJobId,
    runAfter: job.runAfter,
    cancelRequested: job.cancelRequested,
    stage: job.stage,
    progress: job.progress,
    progressMessage: job.progressMessage,
    lockedBy: job.lockedBy,
    lockedAt: job.lockedAt,
    lockUntil: job.lockUntil,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    errorCode: job.errorCode,
    errorMessage: job.errorMessage,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    resultId: job.result?.id ?? null,
  };
}

export type JobView = ReturnType<typeof toJobView>;
