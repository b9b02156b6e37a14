import { getDb } from "../db";
import { getJobDetail } from "../jobs/queries";

/**
 * The console's job page: the domain's detail (job, result, events) plus who owns it, its
 * snapshot, its lineage both ways and the Runtime that holds its lease.
 */
export async function getAdminJobDetail(jobId: string) {
  const db = getDb();
  const detail = await getJobDetail(jobId);
  const { job } = detail;
  const [user, snapshot, retriedFrom, reruns, holder] = await Promise.all([
    db.user.findUnique({ where: { id: job.userId }, select: { id: true, email: true, name: true } }),
    job.snapshotId ? db.snapshot.findUnique({ where: { id: job.snapshotId }, select: { id: true, contentHash: true, content: true, createdAt: true } }) : null,
    job.retriedFromJobId ? db.aiRuntimeJob.findUnique({ where: { id: job.retriedFromJobId }, select: { id: true, status: true, createdAt: true } }) : null,
    db.aiRuntimeJob.findMany({ where: { retriedFromJobId: job.id }, select: { id: true, status: true, createdAt: true }, orderBy: { createdAt: "asc" } }),
    job.lockedBy ? db.runtimeInstance.findUnique({ where: { id: job.lockedBy } }) : null,
  ]);
  return {
    ...detail,
    user,
    snapshot: snapshot ? { ...snapshot, content: snapshot.content as Record<string, unknown> } : null,
    lineage: { retriedFrom, reruns },
    holder: holder ? { id: holder.id, version: holder.version, lastSeenAt: holder.lastSeenAt } : null,
  };
}
