import { z } from "zod";
import { ALERT_CODES, getAlerts } from "../../observability/alerts";
import { getCosts } from "../../admin/costs";
import { listAudit } from "../../admin/audit";
import { getOverview } from "../../admin/overview";
import { onReadReplica } from "../../read-replica";
import { listRuntimes } from "../../admin/runtimes";
import { adminProcedure, router } from "../init";
import { isoDate } from "../schemas";

const ms = z.number().nullable();

const overviewSchema = z.object({
  window: z.enum(["1h", "24h", "7d"]),
  at: isoDate,
  bucketMinutes: z.number(),
  byState: z.array(z.object({ status: z.string(), n: z.number().int() })),
  byType: z.array(z.object({ jobType: z.string(), n: z.number().int() })),
  queueDepth: z.number().int(),
  oldestPendingAgeSeconds: z.number(),
  totals: z.object({
    succeeded: z.number().int(),
    failed: z.number().int(),
    failureRate: z.number(),
    perMinute: z.number(),
    runP50: ms,
    runP95: ms,
    waitP50: ms,
    waitP95: ms,
  }),
  buckets: z.array(
    z.object({
      start: isoDate,
      succeeded: z.number().int(),
      failed: z.number().int(),
      runP50: ms,
      runP95: ms,
      waitP50: ms,
      waitP95: ms,
    }),
  ),
  lastRuntimeSeenAt: isoDate.nullable(),
  alert: z.object({ code: z.literal("NO_RUNTIME"), message: z.string() }).nullable(),
});

const runtimeSchema = z.object({
  id: z.string(),
  capabilities: z.array(z.string()),
  version: z.string().nullable(),
  protocolVersion: z.string().nullable(),
  protocolDeprecation: z.object({ deprecatedAt: isoDate, sunsetAt: isoDate.nullable() }).nullable(),
  firstSeenAt: isoDate,
  lastSeenAt: isoDate,
  jobsInHand: z.number().int(),
  heldJobIds: z.array(z.string()),
  recentSucceeded: z.number().int(),
  recentFailed: z.number().int(),
});

const auditSchema = z.object({
  id: z.string(),
  actorId: z.string(),
  actorEmail: z.string().nullable(),
  action: z.string(),
  scope: z.unknown(),
  count: z.number().int(),
  createdAt: isoDate,
});

const sums = {
  promptTokens: z.number(),
  completionTokens: z.number(),
  cacheHitTokens: z.number(),
  tokens: z.number(),
  attempts: z.number().int(),
  cost: z.number(),
  cacheHitShare: z.number(),
  cacheSaved: z.number(),
};
const costsSchema = z.object({
  at: isoDate,
  from: isoDate,
  currency: z.string(),
  prices: z.object({ promptPerMTok: z.number(), promptCacheHitPerMTok: z.number(), completionPerMTok: z.number() }),
  total: z.object(sums),
  byDay: z.array(z.object({ day: isoDate, ...sums })),
  byType: z.array(z.object({ jobType: z.string(), ...sums })),
  byKeyMode: z.array(z.object({ apiKeyMode: z.string(), ...sums })),
  topLearners: z.array(
    z.object({ userId: z.string(), email: z.string().nullable(), name: z.string().nullable(), ...sums }),
  ),
});

/** Read-only views of the console: overview stats, Runtime instances, the audit trail. */
export const adminMonitorRouter = router({
  overview: adminProcedure
    .input(z.object({ window: z.enum(["1h", "24h", "7d"]).default("1h") }))
    .output(overviewSchema)
    .query(({ input }) => onReadReplica(() => getOverview(input.window))),

  /** The console's alert banner: what needs an operator now (thresholds from config). */
  alerts: adminProcedure
    .input(z.void())
    .output(
      z.object({
        at: isoDate,
        alerts: z.array(
          z.object({
            code: z.enum(ALERT_CODES),
            message: z.string(),
            jobTypes: z.array(z.string()).optional(),
          }),
        ),
        pendingWithoutRuntime: z.array(z.object({ jobType: z.string(), pending: z.number().int() })),
        oldestPendingAgeSeconds: z.number(),
        failureRate: z.number(),
        finishedInWindow: z.number().int(),
        thresholds: z.object({
          runtimeSilentSeconds: z.number(),
          oldestPendingSeconds: z.number(),
          failureRate: z.number(),
          failureMinJobs: z.number(),
        }),
      }),
    )
    .query(() => getAlerts()),

  /** Tokens and estimated cost (prices from config), per day, job type and key mode; top learners. */
  costs: adminProcedure
    .input(z.void())
    .output(costsSchema)
    .query(() => getCosts()),

  runtimes: adminProcedure
    .input(z.void())
    .output(z.object({ items: z.array(runtimeSchema) }))
    .query(async () => ({ items: await listRuntimes() })),

  audit: adminProcedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(50) }))
    .output(z.object({ items: z.array(auditSchema) }))
    .query(async ({ input }) => ({ items: await listAudit(input.limit) })),
});
