import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { metrics } from "../observability/metrics";

/** SPEC §4 usage as the Runtime reported it (every field optional). */
export type UsageInput = {
  provider?: string | null;
  model?: string | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  durationMs?: number | null;
} | null | undefined;

/**
 * Stores the usage of one attempt (one row per job and attemptNo: a repeated result or fail of
 * the same attempt is not counted twice) and counts its tokens in Prometheus. Called once the
 * attempt's outcome is recorded, from the result and the fail paths, so a failed attempt's
 * tokens are paid for in the cost views too. The job's owner, type and key mode come from the
 * job row, never from the Runtime.
 */
export async function recordUsage(jobId: string, attemptNo: number, outcome: string, usage: UsageInput) {
  if (!usage) return;
  const promptTokens = usage.promptTokens ?? 0;
  const completionTokens = usage.completionTokens ?? 0;
  const rows = await getDb().$queryRaw<{ jobType: string; apiKeyMode: string }[]>(Prisma.sql`
    INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", provider, model,
      "promptTokens", "completionTokens", "durationMs", outcome, "createdAt")
    SELECT gen_random_uuid()::text, j.id, ${attemptNo}::int, j."userId", j."jobType", j."apiKeyMode",
      ${usage.provider ?? null}::text, ${usage.model ?? null}::text, ${promptTokens}::int, ${completionTokens}::int,
      ${usage.durationMs ?? 0}::int, ${outcome}, now()
    FROM "AiRuntimeJob" j WHERE j.id = ${jobId}
    ON CONFLICT ("jobId", "attemptNo") DO NOTHING
    RETURNING "jobType"::text AS "jobType", "apiKeyMode"::text AS "apiKeyMode"`);
  const row = rows[0];
  if (!row) return;
  const labels = { provider: usage.provider ?? "unknown", job_type: row.jobType, api_key_mode: row.apiKeyMode };
  const m = metrics();
  m.tokens.inc({ ...labels, kind: "prompt" }, promptTokens);
  m.tokens.inc({ ...labels, kind: "completion" }, completionTokens);
  m.modelCallSeconds.inc(labels, (usage.durationMs ?? 0) / 1000);
}
