import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import type { Holder } from "./fence";
import { MAX_RESULTS_PER_REQUEST } from "./constants";
import { transition, type JobRow } from "./state-machine";
import { countUsage, tokenBudgetSql, type UsageInput } from "./usage";
import { onPartition, partitionOf, siblingOf } from "./job-partition";

/** A result as a Runtime submits it (POST /{jobId}/result, or one item of POST /results). */
export type ResultInput = Holder & {
  attemptNo: number;
  output: unknown;
  outputSchemaVersion?: string;
  promptVersion?: string | null;
  modelProvider?: string | null;
  modelName?: string | null;
  usage?: UsageInput;
  latencyMs?: number | null;
  degraded?: boolean;
};

/** A result that passed its checks (server/jobs/results.ts checkResult), ready to store. */
export type CheckedResult = {
  item: Omit<ResultInput, keyof Holder> & { jobId: string };
  output: unknown;
  outputHash: string;
  version: string;
};

/**
 * Ends every held, not cancel-requested job of the list succeeded and inserts its result and
 * usage, in one statement fenced per job on its own lease and attempt: the one write of a result,
 * alone (`wait`: the single result waits for its row) or several at once (server/jobs/results-batch.ts).
 * The inputs travel as arrays, so the statement's text is the same for any number of results and
 * stays prepared. Returns jobId → resultId of the rows it stored; a job missing from it was not written.
 */
export async function storeResults(
  holder: Holder,
  valid: CheckedResult[],
  at: Date,
  opts: { wait?: boolean } = {},
): Promise<Map<string, string>> {
  const col = <T>(f: (v: CheckedResult) => T) => valid.map(f);
  const ids = col((v) => v.item.jobId);
  const arrays = {
    ids,
    attempts: col((v) => v.item.attemptNo),
    promptVersions: col((v) => v.item.promptVersion ?? null),
    versions: col((v) => v.version),
  };
  const usageInts = (
    field: "promptTokens" | "completionTokens" | "cacheHitTokens" | "cacheMissTokens" | "durationMs",
  ) => col((v) => v.item.usage?.[field] ?? 0);
  const pick = (values: unknown[], type: string) =>
    Prisma.sql`(${values}::${Prisma.raw(type)})[array_position(${ids}::text[], j.id)]`;
  const key = holder.keyId == null ? Prisma.empty : Prisma.sql` AND j."lockedByKeyId" = ${holder.keyId}`;
  const rows = await onPartition(await partitionOf(ids), (table) =>
    transition(getDb(), {
      table,
      action: "succeed",
      where: Prisma.sql`j.id = ANY(${ids}::text[]) AND j."lockedBy" = ${holder.runtimeInstanceId}${key}
      AND j."attemptNo" = ${pick(arrays.attempts, "int[]")} AND j."lockUntil" > ${at}::timestamp(3) AND NOT j."cancelRequested"`,
      to: Prisma.sql`'succeeded'`,
      // A batch takes SKIP LOCKED: a row another statement holds (a heartbeat, a racing copy of this
      // batch) is left to the single result's path, which waits for it alone (`wait`); a batch never
      // waits while holding rows.
      ...(opts.wait ? {} : { batch: { orderBy: Prisma.sql`j.id`, limit: MAX_RESULTS_PER_REQUEST } }),
      set: Prisma.sql`"finishedAt" = ${at}::timestamp(3), "lockedBy" = NULL, "lockUntil" = NULL, "leaseCheckAt" = NULL, progress = 100,
      "errorCode" = NULL, "errorMessage" = NULL, "promptVersion" = COALESCE(${pick(arrays.promptVersions, "text[]")}, j."promptVersion"),
      "outputSchemaVersion" = ${pick(arrays.versions, "text[]")}`,
      // Each field once, typed: no text parsed twice in the statement. The usage row is the attempt's one
      // record of its usage (the result row's `usage` is no longer written). The usage row takes no ON
      // CONFLICT (a speculative insert costs a WAL record and its own work per row): upd holds each
      // (job, attempt) at most once, in the one transition that ends that attempt, so no usage row of
      // it exists yet (a fail stores its usage as it ends the attempt, whose result is then fenced out).
      extraCtes: Prisma.sql`batch_in AS (
      SELECT * FROM unnest(${ids}::text[], ${col((v) => JSON.stringify(v.output))}::text[], ${col((v) => v.outputHash)}::text[],
        ${arrays.versions}::text[], ${arrays.promptVersions}::text[],
        ${col((v) => v.item.modelProvider ?? null)}::text[], ${col((v) => v.item.modelName ?? null)}::text[],
        ${col((v) => v.item.usage != null)}::boolean[], ${col((v) => v.item.latencyMs ?? null)}::int[],
        ${col((v) => v.item.degraded ?? false)}::boolean[], ${col((v) => v.item.usage?.provider ?? null)}::text[],
        ${col((v) => v.item.usage?.model ?? null)}::text[], ${usageInts("promptTokens")}::int[], ${usageInts("completionTokens")}::int[],
        ${usageInts("cacheHitTokens")}::int[], ${usageInts("cacheMissTokens")}::int[], ${usageInts("durationMs")}::int[])
        AS b(id, output, "outputHash", version, "promptVersion", provider, model, "hasUsage", "latencyMs", degraded,
          "usageProvider", "usageModel", "promptTokens", "completionTokens", "cacheHitTokens", "cacheMissTokens", "durationMs")
    ), res AS (
      INSERT INTO ${Prisma.raw(`"${siblingOf(table, "AiRuntimeResult")}"`)} (id, "jobId", "attemptNo", output, "outputHash", "outputSchemaVersion",
        "promptVersion", "modelProvider", "modelName", "latencyMs", degraded, "createdAt")
      SELECT gen_random_uuid()::text, u.id, u."attemptNo", b.output::jsonb, b."outputHash", b.version,
        b."promptVersion", b.provider, b.model, b."latencyMs", b.degraded, ${at}::timestamp(3)
      FROM upd u JOIN batch_in b ON b.id = u.id RETURNING id, "jobId"
    ), usage_row AS (
      INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", provider, model,
        "promptTokens", "completionTokens", "cacheHitTokens", "cacheMissTokens", "durationMs", outcome, "createdAt")
      SELECT gen_random_uuid()::text, u.id, u."attemptNo", u."userId", u."jobType"::"JobType", u."apiKeyMode"::"ApiKeyMode",
        b."usageProvider", b."usageModel", b."promptTokens", b."completionTokens", b."cacheHitTokens", b."cacheMissTokens", b."durationMs",
        'succeeded', ${at}::timestamp(3)
      FROM upd u JOIN batch_in b ON b.id = u.id WHERE b."hasUsage"
      RETURNING "userId", "apiKeyMode", "promptTokens"::bigint + "completionTokens" AS tokens
    ), ${tokenBudgetSql(at)}`,
      extraColumns: Prisma.sql`(SELECT res.id FROM res WHERE res."jobId" = upd.id) AS "resultId"`,
      actor: { type: "runtime", id: holder.runtimeInstanceId },
      now: at,
      // What the usage counters and the job's spans read: a batch's rows come back with these and the counted columns only.
      returned: ["jobType", "apiKeyMode", "attemptNo"],
    }),
  );
  const byId = new Map(valid.map((v) => [v.item.jobId, v.item]));
  const stored = new Map<string, string>();
  type Stored = Pick<JobRow, "id" | "jobType" | "apiKeyMode"> & { resultId?: string | null };
  for (const row of rows as Stored[]) {
    const resultId = row.resultId;
    if (!resultId) continue;
    stored.set(row.id, resultId);
    countUsage([row], byId.get(row.id)?.usage);
  }
  return stored;
}
