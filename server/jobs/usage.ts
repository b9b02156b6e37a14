import { Prisma } from "../generated/prisma/client";
import { metrics } from "../observability/metrics";
import { costConfig } from "../config";
import { estimateCost } from "./prices";
import { TOKEN_METRIC, windowOf } from "./quota";

/** docs/contract.md#the-runtime-protocol usage as the Runtime reported it (every field optional). */
export type UsageInput =
  | {
      provider?: string | null;
      model?: string | null;
      promptTokens?: number | null;
      completionTokens?: number | null;
      cacheHitTokens?: number | null;
      cacheMissTokens?: number | null;
      durationMs?: number | null;
    }
  | null
  | undefined;

/**
 * The usage of one attempt as a CTE for the transition that ends the attempt (result or fail),
 * so the attempt's outcome and what it cost commit together, in the same statement. One row per
 * job and attemptNo (a repeated report of the same attempt is not counted twice); the job's
 * owner, type and key mode come from the job row, never from the Runtime. No usage, no row.
 * `outcome` may refer to the updated row as `upd` (e.g. a fail that ended cancelled).
 */
export function usageSql(usage: UsageInput, outcome: Prisma.Sql, at: Date): Prisma.Sql | null {
  if (!usage) return null;
  return Prisma.sql`usage_row AS (
    INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", provider, model,
      "promptTokens", "completionTokens", "cacheHitTokens", "cacheMissTokens", "durationMs", outcome, "createdAt")
    SELECT gen_random_uuid()::text, upd.id, upd."attemptNo", upd."userId", upd."jobType"::"JobType", upd."apiKeyMode"::"ApiKeyMode",
      ${usage.provider ?? null}::text, ${usage.model ?? null}::text, ${usage.promptTokens ?? 0}::int, ${usage.completionTokens ?? 0}::int,
      ${usage.cacheHitTokens ?? 0}::int, ${usage.cacheMissTokens ?? 0}::int, ${usage.durationMs ?? 0}::int, ${outcome}, ${at}::timestamp(3)
    FROM upd
    ON CONFLICT ("jobId", "attemptNo") DO NOTHING
    RETURNING "userId", "apiKeyMode", "promptTokens"::bigint + "completionTokens" AS tokens),
  ${tokenBudgetSql(at)}`;
}

/**
 * Adds a platform-key attempt's tokens to its learner's daily "tokens" counter (the budget that
 * job creation checks, server/jobs/quota.ts), in the statement that stored the usage: only a row
 * that was really inserted counts, so a repeated report adds nothing. Capped at the int maximum,
 * so a hostile report of huge counts cannot overflow the counter into a 500. Reads the CTE usage_row
 * ("userId", "apiKeyMode", tokens).
 */
export function tokenBudgetSql(at: Date): Prisma.Sql {
  const { start } = windowOf("day", at);
  // One row per learner: a batch of results (server/jobs/results-batch.ts) may store several attempts of one learner.
  return Prisma.sql`budget_row AS (
    INSERT INTO "QuotaUsage" ("userId", metric, period, "windowStart", used, "updatedAt")
    SELECT "userId", ${TOKEN_METRIC}, 'day', ${start}::timestamp(3), LEAST(sum(tokens), 2147483647)::int, ${at}::timestamp(3)
    FROM usage_row WHERE "apiKeyMode" = 'platform_key' AND tokens > 0 GROUP BY "userId"
    ON CONFLICT ("userId", metric, period, "windowStart") DO UPDATE
      SET used = LEAST("QuotaUsage".used::bigint + EXCLUDED.used, 2147483647)::int, "updatedAt" = EXCLUDED."updatedAt")`;
}

/** Counts the stored usage in Prometheus, once the statement that stored it has committed. */
export function countUsage(rows: { jobType: string; apiKeyMode: string }[], usage: UsageInput) {
  const row = rows[0];
  if (!usage || !row) return;
  const labels = { provider: usage.provider ?? "unknown", job_type: row.jobType, api_key_mode: row.apiKeyMode };
  const m = metrics();
  m.tokens.inc({ ...labels, kind: "prompt" }, usage.promptTokens ?? 0);
  m.tokens.inc({ ...labels, kind: "completion" }, usage.completionTokens ?? 0);
  m.modelCallSeconds.inc(labels, (usage.durationMs ?? 0) / 1000);
  m.estimatedCost.inc(
    { ...labels, currency: costConfig.currency },
    estimateCost(usage.promptTokens ?? 0, usage.completionTokens ?? 0, usage.cacheHitTokens ?? 0),
  );
}

/** `a, b` of the CTEs that are present, for TransitionSpec.extraCtes. */
export function ctes(...parts: (Prisma.Sql | null)[]): Prisma.Sql | undefined {
  const present = parts.filter((p): p is Prisma.Sql => p !== null);
  return present.length ? Prisma.join(present, ", ") : undefined;
}
