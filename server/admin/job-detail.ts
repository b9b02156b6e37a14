import { getDb } from "../db";
import { getJobDetail } from "../jobs/queries";
import type { Violation } from "../jobs/quality";

/**
 * The console's job page: the domain's detail (job, result, events) plus who owns it, its
 * snapshot, its lineage both ways, the Runtime that holds its lease, and every refused output with
 * the rules it broke (one per attempt).
 */
export async function getAdminJobDetail(jobId: string) {
  const db = getDb();
  const detail = await getJobDetail(jobId);
  const { job } = detail;
  const [user, snapshot, retriedFrom, reruns, holder, rejections] = await Promise.all([
    db.user.findUnique({ where: { id: job.userId }, select: { id: true, email: true, name: true, locale: true } }),
    job.snapshotId
      ? db.snapshot.findUnique({
          where: { id: job.snapshotId },
          select: { id: true, contentHash: true, content: true, createdAt: true },
        })
      : null,
    job.retriedFromJobId
      ? db.aiRuntimeJob.findUnique({
          where: { id: job.retriedFromJobId },
          select: { id: true, status: true, createdAt: true },
        })
      : null,
    db.aiRuntimeJob.findMany({
      where: { retriedFromJobId: job.id },
      select: { id: true, status: true, createdAt: true },
      orderBy: { createdAt: "asc" },
    }),
    job.lockedBy ? db.runtimeInstance.findUnique({ where: { id: job.lockedBy } }) : null,
    db.jobRejection.findMany({
      where: { jobId: job.id },
      orderBy: { attemptNo: "asc" },
      select: { attemptNo: true, output: true, truncated: true, outputBytes: true, violations: true, createdAt: true },
    }),
  ]);
  return {
    ...detail,
    user,
    snapshot: snapshot ? { ...snapshot, content: snapshot.content as Record<string, unknown> } : null,
    lineage: { retriedFrom, reruns },
    holder: holder ? { id: holder.id, version: holder.version, lastSeenAt: holder.lastSeenAt } : null,
    rejections: rejections.map((r) => ({ ...r, violations: r.violations as Violation[] })),
  };
}
