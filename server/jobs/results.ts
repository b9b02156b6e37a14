import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { FAILURE_CODES, isFailureCode } from "./constants";
import { hashJson } from "./hashing";
import { HOLDER_COLUMNS, holds, holdsRow, lockLost, notFound, type Holder } from "./fence";
import { backoffSql, retriesWhen } from "./retry-policy";
import { checkOutput, type OutputCheck } from "./quality";
import { gateResults } from "./lease-gate";
import type { JobTypeName } from "../job-types/catalogue";
import { evidenceFindings } from "../job-types/evidence";
import { insertRejectionSql, keptViolations, reportedRejectionSql, storable, type RejectionReport } from "./rejection";
import { getJobContext } from "./job-context";
import { getSnapshot } from "./snapshot";
import { attemptEnd, attemptEndSet, transition } from "./state-machine";
import { storeResults, type ResultInput } from "./store-results";
import { countUsage, ctes, usageSql, type UsageInput } from "./usage";

export type { ResultInput } from "./store-results";

/**
 * Stores a result and ends the job succeeded, in one statement fenced on the lease. Repeating
 * the same output for the same attempt answers idempotent; a different output after success is
 * RESULT_ALREADY_EXISTS. Output that fails its schema version or the quality rules fails the job
 * (INVALID_SCHEMA, not retried). A cancel-requested job ends cancelled and keeps no result.
 */
export async function submitResult(jobId: string, input: ResultInput, checked?: CheckedInput): Promise<ResultAnswer> {
  // The lease first: a result that cannot be stored never reaches the checks (server/jobs/lease-gate.ts).
  if (!checked) {
    const [refused] = await gateResults(input, [{ jobId, attemptNo: input.attemptNo }], now());
    if (refused) throw refused;
  }
  // Each result is checked once, whatever the tries below (a batch passes the checks it already ran).
  const result = checked ?? (await checkResult(jobId, input));
  for (let tries = 1; ; tries++) {
    const answer = await submitOnce(jobId, input, result);
    if (answer) return answer;
    // Each miss means another writer changed the row between our write and our read; a row that
    // keeps changing that way is not one this Runtime can rely on holding.
    if (tries >= STORE_TRIES)
      throw new AppError(
        "LOCK_LOST",
        "the job changed under every attempt to store the result; it is no longer safely held",
        { tries },
      );
  }
}

/** Write, then read-and-explain, this many times at most before giving up (a race lost each time). */
export const STORE_TRIES = 3;

/** One try: the answer, an AppError, or null when the write missed although the row looked held. */
async function submitOnce(jobId: string, input: ResultInput, checked: CheckedInput): Promise<ResultAnswer | null> {
  const db = getDb();
  const at = now();
  const { check, outputHash, version, degraded } = checked;

  // The common case, one statement: the caller holds the lease and the output is valid.
  if (check.ok) {
    const stored = await storeResult(jobId, { ...input, degraded }, { output: check.output, outputHash, version, at });
    if (stored) return { status: "succeeded", resultId: stored, idempotent: false, degraded };
  }

  // Otherwise read the row and say exactly why.
  const job = await db.aiRuntimeJob.findUnique({
    where: { id: jobId },
    select: {
      ...HOLDER_COLUMNS,
      cancelRequested: true,
      result: { select: { id: true, attemptNo: true, outputHash: true, degraded: true } },
    },
  });
  if (!job || (input.keyId != null && job.lockedByKeyId !== input.keyId)) throw notFound(jobId);
  if (job.status === "succeeded" && job.result) {
    // The same output of the same attempt again: idempotent.
    if (job.result.attemptNo === input.attemptNo && job.result.outputHash === outputHash)
      return { status: "succeeded", resultId: job.result.id, idempotent: true, degraded: job.result.degraded };
    throw new AppError("RESULT_ALREADY_EXISTS", "this job already has a different result", { resultId: job.result.id });
  }
  if (!holdsRow(job, input, input.attemptNo, at)) throw await lockLost(jobId, input);
  if (job.cancelRequested) {
    await endCancelled(jobId, input, input.attemptNo, at);
    throw new AppError("JOB_CANCELLED", "the job was cancelled; its result was not stored");
  }
  if (!check.ok) {
    const message = storable(`output rejected: ${check.findings.join("; ")}`.slice(0, 2000));
    const rows = await transition(db, {
      action: "fail",
      where: holds(jobId, input, input.attemptNo, at),
      to: Prisma.sql`'failed'`,
      set: Prisma.sql`"errorCode" = 'INVALID_SCHEMA', "errorMessage" = ${message}, "finishedAt" = ${at}::timestamp(3), "lockedBy" = NULL, "lockUntil" = NULL, "leaseCheckAt" = NULL`,
      eventErrorCode: Prisma.sql`u."errorCode"`,
      eventErrorMessage: Prisma.sql`u."errorMessage"`,
      // The refused output and its violations, per attempt, for the console's diagnosis; and the attempt's usage.
      extraCtes: ctes(
        insertRejectionSql(input.output, check.violations, at),
        usageSql(input.usage, Prisma.sql`'INVALID_SCHEMA'`, at),
      ),
      actor: { type: "runtime", id: input.runtimeInstanceId },
      now: at,
    });
    if (!rows.length) throw await lockLost(jobId, input);
    countUsage(rows, input.usage);
    // The same [{path, rule, message}] list the console shows at this attempt.
    throw new AppError(
      "INVALID_SCHEMA",
      "output does not match its schema version or the quality rules",
      keptViolations(check.violations),
    );
  }
  // Held, valid, not cancelled, yet the write missed: the row changed in between. Look again.
  return null;
}

/**
 * A result checked against its job, before anything is written: the output against its schema
 * version and the type's quality rules, and its hash (with the attempt, what makes a repeat idempotent).
 * An output that passes them but breaks an evidence rule (server/job-types/evidence: what it says
 * against what the snapshot says) is stored degraded, whatever the Runtime reported.
 */
export async function checkResult(
  jobId: string,
  input: Pick<ResultInput, "attemptNo" | "output" | "outputSchemaVersion" | "degraded"> & { jobType?: JobTypeName },
) {
  const db = getDb();
  const ctx = await getJobContext(db, jobId);
  if (!ctx) throw notFound(jobId);
  const version = input.outputSchemaVersion ?? ctx.outputSchemaVersion ?? "v1";
  const snapshot = ctx.snapshotId ? await getSnapshot(db, ctx.snapshotId) : null;
  // A /results item naming another type than its job's: its output is refused and the job fails, as any refused output.
  const mistyped = input.jobType !== undefined && input.jobType !== ctx.jobType;
  const check: OutputCheck = mistyped
    ? mismatch(ctx.jobType, input.jobType!)
    : checkOutput(ctx.jobType, version, input.output, {
        knowledgePointIds: snapshot?.kpIds ?? new Set(),
        snapshot: snapshot?.content ?? null,
        params: ctx.params,
      });
  const outputHash = hashJson(check.ok ? check.output : input.output);
  const findings =
    check.ok && snapshot ? evidenceFindings(ctx.jobType, check.output, { snapshot: snapshot.content, version }) : [];
  const degraded = (input.degraded ?? false) || findings.length > 0;
  return {
    check,
    outputHash,
    version,
    degraded,
    findings,
    jobType: ctx.jobType,
  };
}

/** `degraded`: the result was stored degraded (it broke an evidence rule, or the Runtime said so). */
export type CheckedInput = Awaited<ReturnType<typeof checkResult>>;

function mismatch(actual: JobTypeName, named: JobTypeName): OutputCheck {
  const message = `the job is a ${actual} job, not ${named}`;
  return {
    ok: false,
    findings: [`jobType: ${message}`],
    violations: [{ path: "jobType", rule: "job_type_mismatch", message }],
  };
}

export type ResultAnswer = { status: "succeeded"; resultId: string; idempotent: boolean; degraded: boolean };

/** Ends the job succeeded and inserts its result, fenced on the lease (waiting for the row); null if the fence failed. */
async function storeResult(
  jobId: string,
  input: ResultInput,
  r: { output: unknown; outputHash: string; version: string; at: Date },
): Promise<string | null> {
  const { runtimeInstanceId, keyId, ...item } = input;
  const stored = await storeResults(
    { runtimeInstanceId, keyId },
    [{ item: { ...item, jobId }, output: r.output, outputHash: r.outputHash, version: r.version }],
    r.at,
    { wait: true },
  );
  return stored.get(jobId) ?? null;
}

export type FailInput = Holder &
  RejectionReport & {
    attemptNo: number;
    errorCode: string;
    errorMessage?: string | null;
    usage?: UsageInput;
    /** The provider's Retry-After: the earliest retry, within the backoff cap. */
    retryAfterMs?: number;
  };

/**
 * A Runtime reports a failure for the attempt it holds. Retryable codes go back to pending with
 * backoff while retries remain; others, or exhausted retries, end failed. CANCELLED acknowledges
 * a cancel request. Any failure of a cancel-requested job ends it cancelled (JOB_CANCELLED).
 */
export async function failJob(jobId: string, input: FailInput) {
  if (!isFailureCode(input.errorCode))
    throw new AppError("UNKNOWN_ERROR_CODE", `unknown errorCode ${input.errorCode}`, {
      allowed: Object.keys(FAILURE_CODES),
    });
  const code = input.errorCode;
  const at = now();
  const message = (input.errorMessage ?? "").slice(0, 2000) || null;
  const rows = await transition(getDb(), {
    action: "fail",
    where: Prisma.sql`${holds(jobId, input, input.attemptNo, at)} AND (${code} <> 'CANCELLED' OR j."cancelRequested")`,
    to: attemptEnd(retriesWhen(FAILURE_CODES[code].retryable)),
    set: Prisma.sql`${attemptEndSet(at, Prisma.sql`${at}::timestamp(3) + ${backoffSql(input.retryAfterMs ?? 0)}`, Prisma.sql`j."runAfter"`)},
      "errorCode" = CASE WHEN t."toStatus" = 'cancelled' THEN 'CANCELLED' ELSE ${code} END,
      "errorMessage" = CASE WHEN t."toStatus" = 'cancelled' AND ${code} <> 'CANCELLED' THEN 'cancelled before the failure was reported: ' || COALESCE(${message}::text, ${code}) ELSE ${message}::text END`,
    eventErrorCode: Prisma.sql`${code}::text`,
    eventErrorMessage: Prisma.sql`${message}::text`,
    extraCtes: ctes(
      reportedRejectionSql(input, at),
      usageSql(input.usage, Prisma.sql`CASE WHEN upd.status = 'cancelled' THEN 'CANCELLED' ELSE ${code}::text END`, at),
    ),
    actor: { type: "runtime", id: input.runtimeInstanceId },
    now: at,
  });
  countUsage(rows, input.usage);
  const row = rows[0];
  if (!row) {
    const job = await getDb().aiRuntimeJob.findUnique({
      where: { id: jobId },
      select: { ...HOLDER_COLUMNS, cancelRequested: true },
    });
    if (code === "CANCELLED" && job && !job.cancelRequested && holdsRow(job, input, input.attemptNo, at))
      throw new AppError("CANCEL_NOT_REQUESTED", "CANCELLED acknowledges a cancel request, and none was made");
    throw await lockLost(jobId, input);
  }
  if (row.status === "cancelled" && code !== "CANCELLED")
    throw new AppError("JOB_CANCELLED", "the job was cancelled; the failure was not recorded as a retry");
  return { status: row.status, retryCount: row.retryCount, runAfter: row.status === "pending" ? row.runAfter : null };
}

async function endCancelled(jobId: string, holder: Holder, attemptNo: number, at: Date) {
  await transition(getDb(), {
    action: "fail",
    where: Prisma.sql`${holds(jobId, holder, attemptNo, at)} AND j."cancelRequested"`,
    to: Prisma.sql`'cancelled'`,
    set: Prisma.sql`"finishedAt" = ${at}::timestamp(3), "errorCode" = 'CANCELLED', "errorMessage" = 'cancelled: a result arrived after cancel was requested', "lockedBy" = NULL, "lockUntil" = NULL, "leaseCheckAt" = NULL`,
    eventErrorCode: Prisma.sql`'CANCELLED'`,
    actor: { type: "runtime", id: holder.runtimeInstanceId },
    now: at,
  });
}
