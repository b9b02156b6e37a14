import type { JobStatus, JobType } from "../generated/prisma/enums";
import { getDb } from "../db";
import { AppError } from "../errors";
import type { SnapshotContent } from "./schemas";
import { toJobView } from "./views";

export type JobListFilter = {
  /** A learner's own jobs; omitted for the admin's view of every job. */
  userId?: string;
  status?: JobStatus[];
  jobType?: JobType[];
  page: number;
  pageSize: number;
};

/** Newest first; `{ items, total, page, pageSize }` like every list. */
export async function listJobs(filter: JobListFilter) {
  const db = getDb();
  const where = {
    ...(filter.userId ? { userId: filter.userId } : {}),
    ...(filter.status?.length ? { status: { in: filter.status } } : {}),
    ...(filter.jobType?.length ? { jobType: { in: filter.jobType } } : {}),
  };
  const [rows, total] = await Promise.all([
    db.aiRuntimeJob.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: (filter.page - 1) * filter.pageSize,
      take: filter.pageSize,
      include: { result: { select: { id: true } } },
    }),
    db.aiRuntimeJob.count({ where }),
  ]);
  return { items: rows.map(toJobView), total, page: filter.page, pageSize: filter.pageSize };
}

/**
 * One job with its result and its events (the timeline). `ownerId` limits a learner to their
 * own jobs: another learner's job is reported as not found, never as forbidden.
 */
export async function getJobDetail(jobId: string, opts: { ownerId?: string } = {}) {
  // The job and its attempts' usage rows at once (a job has a few attempts; the result names which).
  const [job, usages] = await Promise.all([
    getDb().aiRuntimeJob.findUnique({
      where: { id: jobId },
      include: { result: true, events: { orderBy: { id: "asc" } } },
    }),
    getDb().jobUsage.findMany({ where: { jobId }, select: USAGE_FIELDS }),
  ]);
  if (!job || (opts.ownerId && job.userId !== opts.ownerId))
    throw new AppError("JOB_NOT_FOUND", `job ${jobId} not found`);
  const { result, events } = job;
  const usage = result ? attemptUsage(usages, result.attemptNo, result.usage) : null;
  return {
    job: toJobView(job),
    result: result
      ? {
          id: result.id,
          attemptNo: result.attemptNo,
          output: result.output as Record<string, unknown>,
          outputSchemaVersion: result.outputSchemaVersion,
          promptVersion: result.promptVersion,
          modelProvider: result.modelProvider,
          modelName: result.modelName,
          usage,
          latencyMs: result.latencyMs,
          degraded: result.degraded,
          createdAt: result.createdAt,
        }
      : null,
    events: events.map((e) => ({
      id: e.id.toString(),
      fromStatus: e.fromStatus,
      toStatus: e.toStatus,
      actorType: e.actorType,
      actorId: e.actorId,
      attemptNo: e.attemptNo,
      errorCode: e.errorCode,
      errorMessage: e.errorMessage,
      createdAt: e.createdAt,
    })),
  };
}

/** The usage fields of docs/contract.md#the-runtime-protocol, as a usage row stores them. */
const USAGE_FIELDS = {
  attemptNo: true,
  provider: true,
  model: true,
  promptTokens: true,
  completionTokens: true,
  cacheHitTokens: true,
  cacheMissTokens: true,
  durationMs: true,
} as const;

/**
 * What an attempt cost, as the Runtime reported it: its usage row; for a result stored before the
 * usage row was the only copy and without one, the result's own copy.
 */
function attemptUsage(rows: { attemptNo: number }[], attemptNo: number, stored: unknown) {
  const row = rows.find((r) => r.attemptNo === attemptNo);
  if (!row) return (stored ?? null) as Record<string, string | number | null> | null;
  const { attemptNo: _, ...usage } = row;
  return usage as Record<string, string | number | null>;
}

/** A learner's own snapshot; another learner's is not found. */
export async function getOwnSnapshot(snapshotId: string, ownerId: string) {
  const row = await getDb().snapshot.findFirst({
    where: { id: snapshotId, userId: ownerId },
    select: { id: true, targetType: true, targetId: true, contentHash: true, content: true, createdAt: true },
  });
  if (!row) throw new AppError("NOT_FOUND", `snapshot ${snapshotId} not found`);
  return { ...row, content: row.content as SnapshotContent };
}
