import type { DbOrTx } from "../db";
import { getDb } from "../db";
import { costConfig, quotaConfig } from "../config";
import { now } from "../clock";
import { AppError } from "../errors";
import type { ApiKeyMode, JobType } from "../generated/prisma/enums";
import { JOB_TYPES } from "./constants";

/**
 * Per-learner quotas. A quota is a counter per (learner, metric, UTC window) in
 * "QuotaUsage", raised by one conditional upsert inside the caller's transaction:
 * `used + amount <= allowed` is checked and written in the same statement, on a row PostgreSQL
 * locks, so concurrent and batched requests can never pass a limit together, and a transaction
 * that rolls back (an idempotent repeat that lost its creation race, a refused consent) takes its
 * increment with it. Metrics are strings, so a daily token budget is `consumeQuota(tx, user,
 * [{metric: "tokens", period: "day", allowed}], tokens, at)` with nothing new here.
 */
export const PERIODS = ["hour", "day"] as const;
export type Period = (typeof PERIODS)[number];
export type QuotaRule = { metric: string; period: Period; allowed: number };

const PERIOD_MS: Record<Period, number> = { hour: 3_600_000, day: 86_400_000 };

/** The UTC hour or day that `at` falls in. */
export function windowOf(period: Period, at: Date): { start: Date; end: Date } {
  const start = new Date(Math.floor(at.getTime() / PERIOD_MS[period]) * PERIOD_MS[period]);
  return { start, end: new Date(start.getTime() + PERIOD_MS[period]) };
}

export const jobMetric = (jobType: JobType | null) => (jobType ? `jobs:${jobType}` : "jobs");
export const JOB_METRICS = ["jobs", ...JOB_TYPES.map((t) => `jobs:${t}`)];
/** Tokens spent on the platform key per UTC day: raised when usage is stored (usage.ts). */
export const TOKEN_METRIC = "tokens";
/** Every metric an admin can override. */
export const QUOTA_METRICS = [...JOB_METRICS, TOKEN_METRIC];

/** The configured limits on job creation: all jobs per hour and per day, and some types per hour. */
function defaultJobRules(): QuotaRule[] {
  const perType = quotaConfig.jobTypePerHour;
  return [
    { metric: "jobs", period: "hour", allowed: quotaConfig.jobsPerHour },
    { metric: "jobs", period: "day", allowed: quotaConfig.jobsPerDay },
    ...JOB_TYPES.filter((t) => Object.hasOwn(perType, t)).map((t) => ({
      metric: jobMetric(t),
      period: "hour" as const,
      allowed: perType[t]!,
    })),
    { metric: TOKEN_METRIC, period: "day", allowed: costConfig.platformTokensPerDay },
  ];
}

type EffectiveRule = QuotaRule & { overridden: boolean };

/** Defaults with this learner's overrides applied; an override may also add a limit the defaults lack. */
async function learnerJobRules(db: DbOrTx, userId: string): Promise<EffectiveRule[]> {
  const overrides = await db.quotaLimit.findMany({ where: { userId, metric: { in: QUOTA_METRICS } } });
  const rules: EffectiveRule[] = defaultJobRules().map((r) => ({ ...r, overridden: false }));
  for (const o of overrides) {
    const period = o.period as Period;
    const rule = rules.find((r) => r.metric === o.metric && r.period === period);
    if (rule) Object.assign(rule, { allowed: o.allowed, overridden: true });
    else rules.push({ metric: o.metric, period, allowed: o.allowed, overridden: true });
  }
  return rules;
}

const appliesTo = (jobType: JobType) => (r: QuotaRule) => r.metric === "jobs" || r.metric === jobMetric(jobType);

function exceeded(rule: QuotaRule, used: number, resetsAt: Date) {
  const what =
    rule.metric === "jobs" ? "analyses" : `${rule.metric.slice("jobs:".length).replaceAll("_", " ")} analyses`;
  return new AppError(
    "QUOTA_EXCEEDED",
    `You have started ${used} of your ${rule.allowed} ${what} this ${rule.period}; you can start more after ${resetsAt.toISOString()}.`,
    { metric: rule.metric, period: rule.period, allowed: rule.allowed, used, resetsAt: resetsAt.toISOString() },
  );
}

/**
 * Adds `amount` to every rule's counter for its current window, all or nothing: the first rule
 * that would pass its limit throws QUOTA_EXCEEDED, and the caller's transaction undoes the others.
 * Rules are taken in one order, so two transactions of one learner never deadlock on the rows.
 */
export async function consumeQuota(tx: DbOrTx, userId: string, rules: QuotaRule[], amount: number, at: Date) {
  const ordered = [...rules].sort((a, b) => `${a.metric}|${a.period}`.localeCompare(`${b.metric}|${b.period}`));
  for (const rule of ordered) {
    const { start, end } = windowOf(rule.period, at);
    const rows =
      amount <= rule.allowed
        ? await tx.$queryRaw<{ used: number }[]>`
            INSERT INTO "QuotaUsage" ("userId", metric, period, "windowStart", used, "updatedAt")
            VALUES (${userId}, ${rule.metric}, ${rule.period}, ${start}::timestamp(3), ${amount}, ${at}::timestamp(3))
            ON CONFLICT ("userId", metric, period, "windowStart") DO UPDATE
              SET used = "QuotaUsage".used + EXCLUDED.used, "updatedAt" = EXCLUDED."updatedAt"
              WHERE "QuotaUsage".used + EXCLUDED.used <= ${rule.allowed}
            RETURNING used`
        : [];
    if (!rows.length) {
      const current = await tx.quotaUsage.findUnique({
        where: {
          userId_metric_period_windowStart: { userId, metric: rule.metric, period: rule.period, windowStart: start },
        },
        select: { used: true },
      });
      throw exceeded(rule, current?.used ?? 0, end);
    }
  }
}

/** The learner's job limits (defaults with overrides), read before the creating transaction. */
export async function jobQuotaRules(db: DbOrTx, userId: string): Promise<QuotaRule[]> {
  return (await learnerJobRules(db, userId)).filter((r) => r.metric !== TOKEN_METRIC);
}

/**
 * Counts new jobs of these types against `rules` (jobQuotaRules), all or nothing: each limit is
 * raised once by the number of the jobs it applies to, in one order (no deadlock between two
 * transactions of one learner); the first that would pass its limit throws QUOTA_EXCEEDED.
 */
export async function consumeJobsQuota(tx: DbOrTx, userId: string, rules: QuotaRule[], jobTypes: JobType[], at: Date) {
  const ordered = [...rules].sort((a, b) => `${a.metric}|${a.period}`.localeCompare(`${b.metric}|${b.period}`));
  for (const rule of ordered) {
    const amount = jobTypes.filter((t) => appliesTo(t)(rule)).length;
    if (amount) await consumeQuota(tx, userId, [rule], amount, at);
  }
}

export type QuotaUsageView = {
  metric: string;
  jobType: JobType | null;
  period: Period;
  allowed: number;
  used: number;
  remaining: number;
  resetsAt: Date;
  overridden: boolean;
};

/** Every job limit of a learner with this window's use and when it resets (learner page, admin view). */
export async function getJobQuotaUsage(userId: string, at: Date = now()): Promise<QuotaUsageView[]> {
  const db = getDb();
  const rules = await learnerJobRules(db, userId);
  const starts = PERIODS.map((p) => windowOf(p, at).start);
  const rows = await db.quotaUsage.findMany({
    where: { userId, metric: { in: QUOTA_METRICS }, windowStart: { in: starts } },
  });
  return rules.map((r) => {
    const { start, end } = windowOf(r.period, at);
    const used =
      rows.find((u) => u.metric === r.metric && u.period === r.period && u.windowStart.getTime() === start.getTime())
        ?.used ?? 0;
    const jobType = !r.metric.startsWith("jobs:") ? null : (r.metric.slice("jobs:".length) as JobType);
    return {
      metric: r.metric,
      jobType,
      period: r.period,
      allowed: r.allowed,
      used,
      remaining: Math.max(0, r.allowed - used),
      resetsAt: end,
      overridden: r.overridden,
    };
  });
}

/**
 * Refuses a several-type trigger up front when not every job would fit, so "Run all five" with
 * three left starts none rather than three (each job is still counted atomically as it is made).
 */
export async function assertJobQuotaRoom(userId: string, jobTypes: JobType[], at: Date = now()) {
  for (const u of await getJobQuotaUsage(userId, at)) {
    if (u.metric === TOKEN_METRIC) continue;
    const needed = u.jobType === null ? jobTypes.length : jobTypes.filter((t) => t === u.jobType).length;
    if (needed && u.used + needed > u.allowed) throw exceeded(u, u.used, u.resetsAt);
  }
}

/** Counters whose window ended more than a day ago are history; the daily prune deletes them. */
export async function pruneQuotaUsage(at: Date = now()) {
  const before = new Date(windowOf("day", at).start.getTime() - PERIOD_MS.day);
  const { count } = await getDb().quotaUsage.deleteMany({ where: { windowStart: { lt: before } } });
  return count;
}

/**
 * The daily token budget on the platform key: a learner who has already spent today's tokens
 * (usage stored for their platform-key attempts) starts no new platform-key job until the UTC day
 * ends. Jobs on their own DeepSeek key are not counted and not refused. Tokens are known only
 * after a job ran, so this admits on what is spent: jobs admitted just under the budget may
 * overshoot it by their own use, and the next creation is refused.
 */
export async function assertTokenBudget(db: DbOrTx, userId: string, apiKeyMode: ApiKeyMode, at: Date) {
  if (apiKeyMode !== "platform_key") return;
  const override = await db.quotaLimit.findUnique({
    where: { userId_metric_period: { userId, metric: TOKEN_METRIC, period: "day" } },
    select: { allowed: true },
  });
  const allowed = override?.allowed ?? costConfig.platformTokensPerDay;
  const { start, end } = windowOf("day", at);
  const row = await db.quotaUsage.findUnique({
    where: { userId_metric_period_windowStart: { userId, metric: TOKEN_METRIC, period: "day", windowStart: start } },
    select: { used: true },
  });
  const used = row?.used ?? 0;
  if (used < allowed) return;
  throw new AppError(
    "QUOTA_EXCEEDED",
    `You have used today's AI budget (${used} of ${allowed} tokens on the platform key); it resets at ${end.toISOString()}.`,
    { metric: TOKEN_METRIC, period: "day", allowed, used, resetsAt: end.toISOString() },
  );
}
