import { Prisma } from "../generated/prisma/client";
import { alertConfig } from "../config";
import { getDb } from "../db";
import { now } from "../clock";
import { OUTCOME_STATUSES } from "../jobs/constants";
import { statusList } from "../jobs/status-sql";

/** The failure-rate alert looks at jobs finished in this window. */
export const FAILURE_WINDOW_MINUTES = 15;

export const ALERT_CODES = ["NO_RUNTIME_FOR_TYPE", "OLDEST_PENDING", "FAILURE_RATE", "DIGEST_FAILING"] as const;
export type AlertCode = (typeof ALERT_CODES)[number];
export type Alert = { code: AlertCode; message: string; jobTypes?: string[] };

export type AlertState = {
  at: Date;
  alerts: Alert[];
  /** Visible pending jobs per job type that no live Runtime has among its capabilities. */
  pendingWithoutRuntime: { jobType: string; pending: number }[];
  oldestPendingAgeSeconds: number;
  failureRate: number;
  finishedInWindow: number;
  thresholds: {
    runtimeSilentSeconds: number;
    oldestPendingSeconds: number;
    failureRate: number;
    failureMinJobs: number;
  };
};

/**
 * The three conditions an operator must not miss, read from the database so every app instance
 * reports the same: work of a type no live Runtime can take, a queue whose head is too old, and
 * a failure spike. Three small queries: pending by type (pending partial index), live Runtimes,
 * and jobs finished in the last 15 minutes (finishedAt index).
 */
export async function getAlerts(): Promise<AlertState> {
  const db = getDb();
  const at = now();
  const t = {
    runtimeSilentSeconds: alertConfig.runtimeSilentSeconds,
    oldestPendingSeconds: alertConfig.oldestPendingSeconds,
    failureRate: alertConfig.failureRate,
    failureMinJobs: alertConfig.failureMinJobs,
  };
  const liveSince = new Date(at.getTime() - t.runtimeSilentSeconds * 1000);
  const windowFrom = new Date(at.getTime() - FAILURE_WINDOW_MINUTES * 60_000);
  const dayAgo = new Date(at.getTime() - 24 * 3_600_000);
  const [pending, live, finished, digests] = await Promise.all([
    db.$queryRaw<{ jobType: string; n: number; oldest: Date }[]>`
      SELECT j."jobType"::text AS "jobType", count(*)::int AS n, min(j."createdAt") AS oldest
      FROM "JobQueue" q JOIN "AiRuntimeJob" j ON j.id = q."jobId"
      WHERE q.status = 'pending' AND j.status = 'pending' AND j."runAfter" <= ${at}::timestamp(3) AND NOT j."cancelRequested" GROUP BY 1`,
    db.$queryRaw<{ capabilities: string[] }[]>`
      SELECT capabilities FROM "RuntimeInstance" WHERE "lastSeenAt" >= ${liveSince}::timestamp(3)`,
    db.$queryRaw<{ succeeded: number; failed: number }[]>(Prisma.sql`
      SELECT count(*) FILTER (WHERE "toStatus" = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE "toStatus" = 'failed')::int AS failed
      FROM "JobEvent" WHERE "createdAt" >= ${windowFrom}::timestamp(3) AND "createdAt" <= ${at}::timestamp(3)
        AND "toStatus" IN (${statusList(OUTCOME_STATUSES)})`),
    // Review digests the SMTP server refused (or could not be reached for) in the last day, not sent since.
    db.$queryRaw<{ n: number; lastError: string | null }[]>`
      SELECT count(*)::int AS n, (array_agg("lastError" ORDER BY "updatedAt" DESC))[1] AS "lastError"
      FROM "DigestSend" WHERE status = 'failed' AND "updatedAt" >= ${dayAgo}::timestamp(3)`,
  ]);

  const served = new Set(live.flatMap((r) => r.capabilities));
  const orphaned = pending
    .filter((p) => !served.has(p.jobType))
    .map((p) => ({ jobType: p.jobType, pending: p.n }))
    .sort((a, b) => a.jobType.localeCompare(b.jobType));
  const oldest = pending.reduce<Date | null>((m, p) => (!m || p.oldest < m ? p.oldest : m), null);
  const oldestAge = oldest ? Math.max(0, (at.getTime() - oldest.getTime()) / 1000) : 0;
  const ok = finished[0]?.succeeded ?? 0;
  const bad = finished[0]?.failed ?? 0;
  const rate = ok + bad ? bad / (ok + bad) : 0;

  const alerts: Alert[] = [];
  if (orphaned.length)
    alerts.push({
      code: "NO_RUNTIME_FOR_TYPE",
      jobTypes: orphaned.map((o) => o.jobType),
      message: `No live Runtime takes ${orphaned.map((o) => `${o.jobType} (${o.pending} pending)`).join(", ")}`,
    });
  if (oldestAge > t.oldestPendingSeconds)
    alerts.push({
      code: "OLDEST_PENDING",
      message: `The oldest pending job has waited ${Math.round(oldestAge / 60)} min (threshold ${Math.round(t.oldestPendingSeconds / 60)} min)`,
    });
  if (ok + bad >= t.failureMinJobs && rate > t.failureRate)
    alerts.push({
      code: "FAILURE_RATE",
      message: `${Math.round(rate * 100)}% of the ${ok + bad} jobs finished in the last ${FAILURE_WINDOW_MINUTES} min failed (threshold ${Math.round(t.failureRate * 100)}%)`,
    });

  const failedDigests = digests[0]?.n ?? 0;
  if (failedDigests)
    alerts.push({
      code: "DIGEST_FAILING",
      message: `${failedDigests} review digest email${failedDigests === 1 ? "" : "s"} failed in the last 24 h (retried by the scheduler): ${digests[0]?.lastError ?? "unknown error"}`,
    });

  return {
    at,
    alerts,
    pendingWithoutRuntime: orphaned,
    oldestPendingAgeSeconds: oldestAge,
    failureRate: rate,
    finishedInWindow: ok + bad,
    thresholds: t,
  };
}
