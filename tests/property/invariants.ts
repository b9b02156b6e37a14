import { expect } from "vitest";
import { getDb } from "@/server/db";
import type { JobStatus } from "@/server/generated/prisma/enums";
import { FAILURE_CODES } from "@/server/jobs/constants";

const TERMINAL: JobStatus[] = ["succeeded", "failed", "cancelled"];

/**
 * The job engine's invariants over a set of jobs, checked against the database:
 * terminal states never change; at most one result, and only for succeeded jobs;
 * lockedBy/lockUntil/leaseCheckAt set exactly when locked or running (leaseCheckAt ≤ lockUntil); a terminal job has finishedAt and a
 * failed one a known errorCode; the JobEvents form an unbroken chain
 * from creation to the current status; retryCount ≤ maxRetryCount.
 */
export async function checkInvariants(jobIds: string[], seenTerminal: Map<string, JobStatus>) {
  if (!jobIds.length) return;
  const db = getDb();
  const [jobs, events, results] = await Promise.all([
    db.aiRuntimeJob.findMany({ where: { id: { in: jobIds } } }),
    db.jobEvent.findMany({ where: { jobId: { in: jobIds } }, orderBy: { id: "asc" } }),
    db.aiRuntimeResult.groupBy({ by: ["jobId"], where: { jobId: { in: jobIds } }, _count: { _all: true } }),
  ]);
  const resultCount = new Map(results.map((r) => [r.jobId, r._count._all]));
  for (const job of jobs) {
    const where = `job ${job.id} (${job.status})`;
    const before = seenTerminal.get(job.id);
    if (before) expect(job.status, `${where}: terminal state changed from ${before}`).toBe(before);
    if (TERMINAL.includes(job.status)) seenTerminal.set(job.id, job.status);

    const results = resultCount.get(job.id) ?? 0;
    expect(results, `${where}: results`).toBe(job.status === "succeeded" ? 1 : 0);

    const held = job.status === "locked" || job.status === "running";
    expect(job.lockedBy !== null, `${where}: lockedBy set exactly when held`).toBe(held);
    expect(job.lockUntil !== null, `${where}: lockUntil set exactly when held`).toBe(held);
    // The lost-lease search reads leases up to their check time: it may never come after the lease's end.
    expect(job.leaseCheckAt !== null, `${where}: leaseCheckAt set exactly when held`).toBe(held);
    if (held)
      expect(job.leaseCheckAt!.getTime(), `${where}: leaseCheckAt not after lockUntil`).toBeLessThanOrEqual(
        job.lockUntil!.getTime(),
      );
    expect(job.status, `${where}: expired is never left behind`).not.toBe("expired");

    expect(job.retryCount, `${where}: retryCount`).toBeLessThanOrEqual(job.maxRetryCount);
    // A terminal job says when it ended (a prototype-named failure code once ended a job without it).
    expect(
      TERMINAL.includes(job.status) ? job.finishedAt !== null : true,
      `${where}: a terminal job has finishedAt`,
    ).toBe(true);
    if (job.status === "failed")
      expect(
        Object.hasOwn(FAILURE_CODES, job.errorCode ?? ""),
        `${where}: errorCode ${job.errorCode} is a known code`,
      ).toBe(true);

    const chain = events.filter((e) => e.jobId === job.id);
    expect(chain[0]?.fromStatus ?? null, `${where}: first event is the creation`).toBeNull();
    for (let i = 1; i < chain.length; i++) {
      expect(chain[i]!.fromStatus, `${where}: event ${i} continues the chain`).toBe(chain[i - 1]!.toStatus);
    }
    expect(chain.at(-1)?.toStatus, `${where}: last event is the current status`).toBe(job.status);
    const attempts = chain.filter((e) => e.toStatus === "locked").length;
    expect(job.attemptNo, `${where}: attemptNo counts the locks`).toBe(attempts);
    const retries = chain.filter((e) => e.fromStatus !== null && e.toStatus === "pending").length;
    expect(job.retryCount, `${where}: retryCount counts the returns to pending`).toBe(retries);
  }
}
