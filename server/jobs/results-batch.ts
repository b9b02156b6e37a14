import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { isAppError } from "../errors";
import type { Holder } from "./fence";
import { MAX_RESULTS_PER_REQUEST } from "./constants";
import { checkResult, submitResult, type ResultAnswer, type ResultInput } from "./results";
import { transition, type JobRow } from "./state-machine";
import { countUsage, tokenBudgetSql } from "./usage";

/** One result of a batch: what POST /{jobId}/result takes, with the job it is for. */
export type BatchedResult = Omit<ResultInput, keyof Holder> & { jobId: string };

/** Per result, what its own POST /{jobId}/result would have answered: the status and the body. */
export type BatchedAnswer = {
  jobId: string;
  httpStatus: number;
  body: ResultAnswer | { error: { code: string; message: string; details?: unknown } };
};

/**
 * Several results of one Runtime in one request, each with exactly the outcome it would have had
 * alone (POST /{jobId}/result): fenced on its own lease, idempotent per attempt and output, refused
 * with its own error. The valid results of jobs still held are stored by one statement (one
 * transaction, one event and one push per job); every other result (a repeat, a lost lease, a
 * cancel, an invalid output) then goes the single result's way, which says why. A Runtime whose
 * short jobs end together thus pays one request and one commit for all of them.
 */
export async function submitResults(holder: Holder, items: BatchedResult[]): Promise<BatchedAnswer[]> {
  if (items.length > MAX_RESULTS_PER_REQUEST) throw new Error(`at most ${MAX_RESULTS_PER_REQUEST} results at once`);
  const at = now();
  const checked = await Promise.all(
    items.map(async (item) => {
      try {
        return { item, ...(await checkResult(item.jobId, item)) };
      } catch (e) {
        if (isAppError(e)) return null; // an unknown job: the single path answers JOB_NOT_FOUND
        throw e;
      }
    }),
  );
  const valid = checked.flatMap((c) => (c?.check.ok ? [{ ...c, output: c.check.output }] : []));
  const stored = valid.length ? await storeResults(holder, valid, at) : new Map<string, string>();
  const answers: BatchedAnswer[] = [];
  for (const item of items) {
    const resultId = stored.get(item.jobId);
    if (resultId) {
      answers.push({ jobId: item.jobId, httpStatus: 200, body: { status: "succeeded", resultId, idempotent: false } });
      continue;
    }
    try {
      answers.push({
        jobId: item.jobId,
        httpStatus: 200,
        body: await submitResult(item.jobId, { ...item, ...holder }),
      });
    } catch (e) {
      if (!isAppError(e)) throw e;
      const error = { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) };
      answers.push({ jobId: item.jobId, httpStatus: e.status, body: { error } });
    }
  }
  return answers;
}

type Valid = { item: BatchedResult; output: unknown; outputHash: string; key: string; version: string };

/**
 * Ends every held, not cancel-requested job of the batch succeeded and inserts its result and
 * usage, in one statement fenced per job on its own attempt. The inputs travel as arrays, so the
 * statement's text is the same for any batch and stays prepared. Returns jobId → resultId of the
 * rows it stored; a job missing from it was not written.
 */
async function storeResults(holder: Holder, valid: Valid[], at: Date): Promise<Map<string, string>> {
  const col = <T>(f: (v: Valid) => T) => valid.map(f);
  const ids = col((v) => v.item.jobId);
  const arrays = {
    ids,
    attempts: col((v) => v.item.attemptNo),
    promptVersions: col((v) => v.item.promptVersion ?? null),
    versions: col((v) => v.version),
  };
  const pick = (values: unknown[], type: string) =>
    Prisma.sql`(${values}::${Prisma.raw(type)})[array_position(${ids}::text[], j.id)]`;
  const key = holder.keyId == null ? Prisma.empty : Prisma.sql` AND j."lockedByKeyId" = ${holder.keyId}`;
  const rows = await transition(getDb(), {
    action: "succeed",
    where: Prisma.sql`j.id = ANY(${ids}::text[]) AND j."lockedBy" = ${holder.runtimeInstanceId}${key}
      AND j."attemptNo" = ${pick(arrays.attempts, "int[]")} AND j."lockUntil" > ${at}::timestamp(3) AND NOT j."cancelRequested"`,
    to: Prisma.sql`'succeeded'`,
    // SKIP LOCKED: a row another statement holds (a heartbeat, a racing copy of this batch) goes the
    // single result's way below, which waits for it alone; a batch never waits while holding rows.
    batch: { orderBy: Prisma.sql`j.id`, limit: MAX_RESULTS_PER_REQUEST },
    set: Prisma.sql`"finishedAt" = ${at}::timestamp(3), "lockedBy" = NULL, "lockUntil" = NULL, "leaseCheckAt" = NULL, progress = 100,
      "errorCode" = NULL, "errorMessage" = NULL, "promptVersion" = COALESCE(${pick(arrays.promptVersions, "text[]")}, j."promptVersion"),
      "outputSchemaVersion" = ${pick(arrays.versions, "text[]")}`,
    extraCtes: Prisma.sql`batch_in AS (
      SELECT * FROM unnest(${ids}::text[], ${col((v) => JSON.stringify(v.output))}::text[], ${col((v) => v.outputHash)}::text[],
        ${col((v) => v.key)}::text[], ${arrays.versions}::text[], ${arrays.promptVersions}::text[],
        ${col((v) => v.item.modelProvider ?? null)}::text[], ${col((v) => v.item.modelName ?? null)}::text[],
        ${col((v) => (v.item.usage ? JSON.stringify(v.item.usage) : null))}::text[], ${col((v) => v.item.latencyMs ?? null)}::int[],
        ${col((v) => v.item.degraded ?? false)}::boolean[])
        AS b(id, output, "outputHash", key, version, "promptVersion", provider, model, usage, "latencyMs", degraded)
    ), res AS (
      INSERT INTO "AiRuntimeResult" (id, "jobId", "attemptNo", output, "outputHash", "resultIdempotencyKey", "outputSchemaVersion",
        "promptVersion", "modelProvider", "modelName", usage, "latencyMs", degraded, "createdAt")
      SELECT gen_random_uuid()::text, u.id, u."attemptNo", b.output::jsonb, b."outputHash", b.key, b.version,
        b."promptVersion", b.provider, b.model, b.usage::jsonb, b."latencyMs", b.degraded, ${at}::timestamp(3)
      FROM upd u JOIN batch_in b ON b.id = u.id RETURNING id, "jobId"
    ), usage_row AS (
      INSERT INTO "JobUsage" (id, "jobId", "attemptNo", "userId", "jobType", "apiKeyMode", provider, model,
        "promptTokens", "completionTokens", "durationMs", outcome, "createdAt")
      SELECT gen_random_uuid()::text, u.id, u."attemptNo", u."userId", u."jobType"::"JobType", u."apiKeyMode"::"ApiKeyMode",
        b.usage::jsonb->>'provider', b.usage::jsonb->>'model', COALESCE((b.usage::jsonb->>'promptTokens')::int, 0),
        COALESCE((b.usage::jsonb->>'completionTokens')::int, 0), COALESCE((b.usage::jsonb->>'durationMs')::int, 0),
        'succeeded', ${at}::timestamp(3)
      FROM upd u JOIN batch_in b ON b.id = u.id WHERE b.usage IS NOT NULL
      ON CONFLICT ("jobId", "attemptNo") DO NOTHING
      RETURNING "userId", "apiKeyMode", "promptTokens"::bigint + "completionTokens" AS tokens
    ), ${tokenBudgetSql(at)}`,
    extraColumns: Prisma.sql`(SELECT res.id FROM res WHERE res."jobId" = upd.id) AS "resultId"`,
    actor: { type: "runtime", id: holder.runtimeInstanceId },
    now: at,
  });
  const byId = new Map(valid.map((v) => [v.item.jobId, v.item]));
  const stored = new Map<string, string>();
  for (const row of rows as (JobRow & { resultId: string | null })[]) {
    const resultId = row.resultId;
    if (!resultId) continue;
    stored.set(row.id, resultId);
    countUsage([row], byId.get(row.id)?.usage);
  }
  return stored;
}
