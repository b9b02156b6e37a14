import type { z } from "zod";
import { getDb } from "../db";
import { AppError, isAppError } from "../errors";
import { DEFAULT_LOCALE, isLocale } from "../i18n/locales";
import { cancelJob } from "../jobs/cancel";
import type { JobErrorCode } from "../jobs/constants";
import type { OutputSchemaVersion } from "../job-types/catalogue";
import { createJob } from "../jobs/create";
import type { Target } from "../jobs/snapshot";
import type { Actor } from "../jobs/state-machine";
import type { TargetType } from "../generated/prisma/enums";
import { internalIds } from "./materials";
import type { jobAnswer, jobBody, TargetInput } from "./schemas";

type JobAnswer = z.infer<typeof jobAnswer>;

/**
 * Starts an analysis for a learner (POST /api/v1/learners/{id}/jobs) through createJob, the
 * function the learner page's trigger uses: the same consent check, quotas and token budget (the
 * platform spends the learner's), de-duplication of an identical analysis in flight, and the
 * idempotency key. The target is named by the platform's ids.
 */
export async function startJob(
  learner: { id: string; externalId: string },
  input: z.infer<typeof jobBody>,
  actor: Actor,
) {
  const target = await resolveTarget(learner, input.target);
  const { job, created } = await createJob({
    userId: learner.id,
    jobType: input.jobType,
    target,
    params: input.params,
    idempotencyKey: input.idempotencyKey ?? null,
    locale: input.locale,
    actor,
  });
  return { created, job: await readJob(job.id) };
}

/** The target by our ids: the learner themself, or their material or knowledge point named by the platform's id. */
async function resolveTarget(learner: { id: string; externalId: string }, target: TargetInput): Promise<Target> {
  if (target.type === "user") return { type: "user", id: learner.id };
  const id = (await internalIds(learner.id, target.type, [target.externalId])).get(target.externalId);
  if (!id)
    throw new AppError("TARGET_NOT_FOUND", `this learner has no ${target.type} with externalId ${target.externalId}`);
  return { type: target.type, id };
}

/**
 * A job as the platform sees it (GET /api/v1/jobs/{jobId}): any job of a learner that has an
 * external id (the platform's learners, made by it or linked to it); other learners' jobs are 404,
 * as are unknown ids. Our ids of targets become the platform's.
 */
export async function readJob(jobId: string): Promise<JobAnswer> {
  const job = await getDb().aiRuntimeJob.findUnique({
    where: { id: jobId },
    include: {
      user: { select: { externalId: true } },
      result: { select: { output: true, outputSchemaVersion: true, degraded: true } },
    },
  });
  if (!job || !job.user.externalId) throw new AppError("JOB_NOT_FOUND", "no job has this id");
  return {
    id: job.id,
    jobType: job.jobType,
    status: job.status,
    learnerExternalId: job.user.externalId,
    target: {
      type: job.targetType,
      externalId: await targetExternalId(job.targetType, job.targetId, job.user.externalId),
    },
    idempotencyKey: job.idempotencyKey,
    locale: isLocale(job.locale) ? job.locale : DEFAULT_LOCALE,
    stage: job.stage,
    progress: job.progress,
    progressMessage: job.progressMessage,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    output: job.result?.output ?? null,
    outputSchemaVersion: (job.result?.outputSchemaVersion as OutputSchemaVersion | undefined) ?? null,
    degraded: job.result?.degraded ?? null,
    cancelRequested: job.cancelRequested,
    error: job.errorCode ? { code: job.errorCode as JobErrorCode, message: job.errorMessage ?? "" } : null,
  };
}

/**
 * Cancels a job (POST /api/v1/jobs/{jobId}/cancel) by the learner's own rules (server/jobs/cancel.ts):
 * pending → cancelled at once; locked or running → cancelRequested, which its Runtime learns on its
 * next heartbeat. Only jobs of the platform's learners (with an external id); others are 404, as
 * on GET. Idempotent: a job already cancelled, or already asked to stop, answers as it is; a job
 * that finished otherwise is 409 JOB_NOT_CANCELLABLE with its status.
 */
export async function cancelPlatformJob(jobId: string, actor: Actor): Promise<JobAnswer> {
  const job = await getDb().aiRuntimeJob.findUnique({
    where: { id: jobId },
    select: { status: true, user: { select: { externalId: true } } },
  });
  if (!job || !job.user.externalId) throw new AppError("JOB_NOT_FOUND", "no job has this id");
  try {
    await cancelJob(jobId, actor);
  } catch (e) {
    const already = isAppError(e) && e.code === "JOB_NOT_CANCELLABLE" && (e.details as { status?: string })?.status;
    if (already !== "cancelled") throw e;
  }
  return readJob(jobId);
}

/** A target's platform id; null for one the platform did not name (made in the browser, or since removed). */
async function targetExternalId(type: TargetType, id: string, learnerExternalId: string) {
  if (type === "user") return learnerExternalId;
  const where = { id };
  const row =
    type === "material"
      ? await getDb().material.findUnique({ where, select: { externalId: true } })
      : await getDb().knowledgePoint.findUnique({ where, select: { externalId: true } });
  return row?.externalId ?? null;
}
