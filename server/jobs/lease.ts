import { Prisma } from "../generated/prisma/client";
import type { JobType } from "../generated/prisma/enums";
import { getDb } from "../db";
import { runSql } from "../sql";
import { livePartition, onPartition } from "./job-partition";
import { jobConfig } from "../config";
import { now } from "../clock";
import { AppError } from "../errors";
import { decryptSecret } from "../security/secret-box";
import { activeCredential } from "../credentials";
import {
  currentScope,
  FULL_SCOPE,
  keyRevoked,
  keyStillValid,
  sameScope,
  scopeRefusal,
  type KeyScope,
} from "./key-scope";
import { HELD_STATUSES, isTerminal } from "./constants";
import { rememberJobContext } from "./job-context";
import { rememberLease } from "./lease-gate";
import { getSnapshot } from "./snapshot";
import { DEFAULT_LOCALE, isLocale } from "../i18n/locales";
import { QUEUE_ORDER } from "./fair-queue";
import {
  BEFORE,
  beforeCtes,
  notify,
  transition,
  transitionSql,
  type JobRow,
  type TransitionSpec,
} from "./state-machine";
import { countTransitions } from "../observability/metrics";
import { holds, lockLost, type Holder } from "./fence";
import { dueLeases, expireSpec, sweepJob } from "./sweep";

/**
 * A lease lasts JOB_LEASE_SECONDS from the last lock/heartbeat, but never past lockedAt +
 * timeoutSeconds: the execution timeout is the lease's hard cap, so a Runtime that keeps
 * heartbeating a stuck job still loses it, and the sweep expires it like any other lease.
 */
function leaseUntil(at: Date, lockedAt: Prisma.Sql = Prisma.sql`j."lockedAt"`) {
  return Prisma.sql`LEAST(${new Date(at.getTime() + jobConfig.leaseSeconds * 1000)}::timestamp(3), ${lockedAt} + make_interval(secs => j."timeoutSeconds"))`;
}

/**
 * Where the lost-lease search first looks at a lease (leaseCheckAt): never after lockUntil, so no
 * passed lease is missed. A new lease starts at its end. A heartbeat leaves it where it is (so the
 * row changes no indexed column and the update is HOT) until it comes within half a lease of the
 * present, then moves it to the new end: a Runtime that heartbeats at least every half lease (every
 * 15–30 s, lease 60 s: docs/contract.md#the-runtime-protocol) is never looked at, and the search
 * reads only leases near their end.
 */
function leaseCheckAfterHeartbeat(at: Date, until: Prisma.Sql) {
  const soon = new Date(at.getTime() + (jobConfig.leaseSeconds * 1000) / 2);
  return Prisma.sql`CASE WHEN j."leaseCheckAt" >= ${soon}::timestamp(3) THEN LEAST(j."leaseCheckAt", ${until}) ELSE ${until} END`;
}

const lockSet = (holder: Holder, at: Date) => {
  const until = leaseUntil(at, Prisma.sql`${at}::timestamp(3)`);
  return Prisma.sql`
  "attemptNo" = j."attemptNo" + 1, "lockedBy" = ${holder.runtimeInstanceId}, "lockedByKeyId" = ${holder.keyId ?? null}::text, "lockedAt" = ${at}::timestamp(3),
  "lockUntil" = ${until}, "leaseCheckAt" = ${until},
  stage = NULL, progress = 0, "progressMessage" = NULL`;
};

const visible = (at: Date) => Prisma.sql`j."runAfter" <= ${at}::timestamp(3) AND NOT j."cancelRequested"`;

/**
 * The Runtime key's scopes (docs/contract.md#consent-credentials-and-cancellation, server/runtime-keys.ts); in-process callers without a key
 * (the in-app worker, tests, scripts) run under FULL_SCOPE.
 */
export type PollInput = Holder & { capabilities: JobType[]; limit: number; scope?: KeyScope };

/** The types a caller may take: its capabilities, narrowed to its key's job types. */
function takeableTypes(input: { capabilities: JobType[]; scope?: KeyScope }) {
  const allowed = input.scope?.jobTypes ?? [];
  return allowed.length ? input.capabilities.filter((t) => allowed.includes(t)) : input.capabilities;
}

/** The key's scopes as a condition on j: its job types, and no learner-key job without that scope. */
const inScope = (scope: KeyScope | undefined) => {
  const s = scope ?? FULL_SCOPE;
  const types = s.jobTypes.length ? Prisma.sql` AND j."jobType"::text IN (${Prisma.join(s.jobTypes)})` : Prisma.empty;
  return s.mayReceiveLearnerKeys ? types : Prisma.sql`${types} AND j."apiKeyMode" = 'platform_key'`;
};

/** Pending in the queue, of the Runtime's types: a condition on the queue row q (JobQueue_pending_idx). */
const queued = (input: PollInput) =>
  Prisma.sql`q.status = 'pending' AND q."jobType" IN (${Prisma.join(
    takeableTypes(input).map((t) => Prisma.sql`${t}::"JobType"`),
  )})`;

/** Of a queued job's row j: visible (runAfter reached, no cancel asked) and within the key's scopes. */
const takeable = (input: PollInput, at: Date, lockKey = false) =>
  Prisma.sql`${visible(at)}${inScope(input.scope && { ...input.scope, jobTypes: [] })}${keyCheck(input, lockKey)}`;

/** A request's key, checked again in the statement that reads or takes jobs for it (keyStillValid). */
function keyCheck(input: { keyId?: string | null; scope?: KeyScope }, lock: boolean) {
  return input.keyId ? Prisma.sql` AND ${keyStillValid(input.keyId, input.scope ?? FULL_SCOPE, lock)}` : Prisma.empty;
}

/**
 * Passed leases, ended exactly as the sweep ends them (expired → pending with retryCount + 1 and
 * backoff, failed JOB_TIMEOUT when retries are spent, cancelled when cancel was asked), in the
 * statement by which claim and poll take or read jobs: docs/contract.md#states-and-transitions, correctness never waits for the
 * sweep. The lease index is read only up to the present leaseCheckAt, which a lease on time has
 * not reached (leaseCheckAfterHeartbeat), so the scan costs the leases near their end, not the
 * number of jobs running. A job so ended comes back when its backoff has passed, as after the
 * sweep (docs/protocol.md).
 */
export function lostLeasesSpec(at: Date, limit: number, by: "claim" | "poll"): TransitionSpec {
  const spec = expireSpec(dueLeases(at), at, limit);
  return { ...spec, actor: { type: "system", id: by } };
}

type PolledJob = {
  id: string;
  jobType: JobType;
  targetType: string;
  targetId: string;
  priority: number;
  attemptNo: number;
  createdAt: Date;
};

/** Pending, visible jobs of the Runtime's types in queue order, without taking them (passed leases end first). */
export async function pollJobs(input: PollInput) {
  if (!takeableTypes(input).length) return [];
  const at = now();
  const limit = clampLimit(input.limit);
  const lost = Prisma.raw(`${BEFORE}upd`);
  type Row = PolledJob & { lost: boolean; fromStatus: string | null; status: string; errorCode: string | null };
  const rows = await onPartition(await livePartition(), (table) =>
    runSql<Row>(
      getDb(),
      Prisma.sql`
    WITH ${beforeCtes({ ...lostLeasesSpec(at, limit, "poll"), table })}
    SELECT FALSE AS lost, q.*, NULL::text AS "fromStatus", NULL::text AS status, NULL::text AS "errorCode", NULL::boolean AS notified FROM (
      SELECT j.id, j."jobType"::text AS "jobType", j."targetType"::text AS "targetType", j."targetId", j.priority, j."attemptNo", j."createdAt"
      FROM "JobQueue" q JOIN ${Prisma.raw(`"${table}"`)} j ON j.id = q."jobId"
      WHERE ${queued(input)} AND j.status = 'pending' AND ${takeable(input, at)}
      ORDER BY ${QUEUE_ORDER}
      LIMIT ${Prisma.raw(String(limit))}) q
    UNION ALL SELECT TRUE, l.id, l."jobType", l."targetType", l."targetId", l.priority, l."attemptNo", l."createdAt",
      l."fromStatus", l.status, l."errorCode", ${notify(`l`)} FROM ${lost} l`,
      "claims",
    ),
  );
  countTransitions(rows.filter((r) => r.lost));
  return rows
    .filter((r) => !r.lost)
    .map(({ id, jobType, targetType, targetId, priority, attemptNo, createdAt }) => ({
      id,
      jobType,
      targetType,
      targetId,
      priority,
      attemptNo,
      createdAt,
    }));
}

/**
 * Takes up to `limit` jobs in one statement (FOR UPDATE SKIP LOCKED): concurrent claimers get
 * disjoint jobs. The same statement ends up to `limit` passed leases (lostLeasesSpec).
 */
export async function claimJobs(input: PollInput) {
  if (!takeableTypes(input).length) return [];
  const at = now();
  const rows = await onPartition(await livePartition(), (table) =>
    transition(
      getDb(),
      { ...claimSpec(input, at), table },
      { ...lostLeasesSpec(at, clampLimit(input.limit), "claim"), table },
      "claims",
    ),
  );
  return loadLeases(rows, input.scope, input.keyId);
}

/** The claim's whole statement (what claimJobs runs on `table`), for the plan tests. */
export function claimStatement(input: PollInput, at: Date, table?: string) {
  return transitionSql(
    { ...claimSpec(input, at), table },
    { ...lostLeasesSpec(at, clampLimit(input.limit), "claim"), table },
  );
}

export function claimSpec(input: PollInput, at: Date): TransitionSpec {
  return {
    action: "claim",
    queue: queued(input),
    where: takeable(input, at, true),
    batch: { orderBy: QUEUE_ORDER, limit: clampLimit(input.limit) },
    to: Prisma.sql`'locked'`,
    set: lockSet(input, at),
    actor: { type: "runtime", id: input.runtimeInstanceId },
    now: at,
  };
}

export async function lockJob(jobId: string, runtimeInstanceId: string, keyId?: string | null, scope?: KeyScope) {
  const holder: Holder = { runtimeInstanceId, keyId };
  for (let tries = 0; tries < 3; tries++) {
    const at = now();
    const rows = await transition(getDb(), {
      action: "lock",
      where: Prisma.sql`j.id = ${jobId} AND ${visible(at)}${inScope(scope)}${keyCheck({ keyId, scope }, true)}`,
      to: Prisma.sql`'locked'`,
      set: lockSet(holder, at),
      actor: { type: "runtime", id: runtimeInstanceId },
      now: at,
    });
    if (rows.length) return (await loadLeases(rows, scope, keyId))[0]!;

    const job = await getDb().aiRuntimeJob.findUnique({
      where: { id: jobId },
      select: { status: true, lockUntil: true, runAfter: true, cancelRequested: true, jobType: true, apiKeyMode: true },
    });
    if (!job) throw new AppError("JOB_NOT_FOUND", `job ${jobId} not found`);
    if (keyId) {
      // The key check in the statement may have refused: revoked, or its scopes changed meanwhile.
      const fresh = await currentScope(keyId);
      if (!fresh) throw keyRevoked();
      if (scope && !sameScope(fresh, scope)) {
        scope = fresh;
        continue;
      }
    }
    const refused = scopeRefusal(job, scope);
    if (refused) throw new AppError("JOB_NOT_LOCKABLE", refused, { status: job.status, reason: "key_scope" });
    if (HELD_STATUSES.includes(job.status)) {
      if (job.lockUntil && job.lockUntil > at)
        throw new AppError("JOB_ALREADY_LOCKED", "another Runtime holds this job's lease");
      // The holder's lease has passed but no sweep has run yet: end that attempt now, then retry.
      await sweepJob(jobId);
      continue;
    }
    if (isTerminal(job.status)) throw new AppError("JOB_NOT_LOCKABLE", `job is ${job.status}`, { status: job.status });
    if (job.cancelRequested) throw new AppError("JOB_NOT_LOCKABLE", "job is being cancelled", { status: job.status });
    if (job.status === "pending" && job.runAfter > at)
      throw new AppError("JOB_NOT_LOCKABLE", `job waits to retry until ${job.runAfter.toISOString()}`, {
        status: job.status,
        runAfter: job.runAfter,
      });
    throw new AppError("JOB_ALREADY_LOCKED", "job was taken by another Runtime");
  }
  throw new AppError("JOB_ALREADY_LOCKED", "job was taken by another Runtime");
}

export type HeartbeatInput = Holder & {
  attemptNo: number;
  stage?: string | null;
  progress?: number | null;
  message?: string | null;
};

/** Extends the lease; the first heartbeat of an attempt moves locked → running. */
export async function heartbeat(jobId: string, input: HeartbeatInput) {
  const at = now();
  const until = leaseUntil(at);
  const rows = await transition(getDb(), {
    action: "heartbeat",
    where: holds(jobId, input, input.attemptNo, at),
    to: Prisma.sql`'running'`,
    set: Prisma.sql`
      "startedAt" = CASE WHEN j.status = 'locked' THEN ${at}::timestamp(3) ELSE j."startedAt" END,
      "lockUntil" = ${until}, "leaseCheckAt" = ${leaseCheckAfterHeartbeat(at, until)},
      stage = COALESCE(${input.stage ?? null}::text, j.stage),
      progress = COALESCE(${input.progress ?? null}::int, j.progress),
      "progressMessage" = COALESCE(${input.message ?? null}::text, j."progressMessage")`,
    actor: { type: "runtime", id: input.runtimeInstanceId },
    now: at,
  });
  const row = rows[0];
  if (!row) throw await lockLost(jobId, input);
  return { lockUntil: row.lockUntil!, cancelRequested: row.cancelRequested };
}

function clampLimit(limit: number) {
  return Math.min(50, Math.max(1, Math.floor(limit)));
}

/** What a Runtime needs to run a job it now holds (docs/contract.md#the-runtime-protocol lock response), from the transition's own row. */
async function loadLeases(rows: JobRow[], scope: KeyScope = FULL_SCOPE, keyId?: string | null) {
  return Promise.all(
    rows.map(async (job) => {
      // Its holder's result then passes the lease gate without a read (server/jobs/lease-gate.ts).
      rememberLease(job.id, { runtimeInstanceId: job.lockedBy!, keyId }, job.attemptNo);
      rememberJobContext(job.id, {
        jobType: job.jobType as JobType,
        params: job.params,
        snapshotId: job.snapshotId,
        outputSchemaVersion: job.outputSchemaVersion,
      });
      const snapshot = job.snapshotId ? await getSnapshot(getDb(), job.snapshotId) : null;
      // Never without the scope (claim and lock already refuse such a job; this is the last fence).
      const apiKey =
        job.apiKeyMode === "user_deepseek_key" && scope.mayReceiveLearnerKeys ? await userKey(job.userId) : undefined;
      return {
        job: {
          id: job.id,
          jobType: job.jobType as JobType,
          targetType: job.targetType,
          targetId: job.targetId,
          priority: job.priority,
          params: job.params as Record<string, unknown>,
          attemptNo: job.attemptNo,
          retryCount: job.retryCount,
          maxRetryCount: job.maxRetryCount,
          timeoutSeconds: job.timeoutSeconds,
          outputSchemaVersion: job.outputSchemaVersion ?? "v1",
          promptVersion: job.promptVersion,
          locale: isLocale(job.locale) ? job.locale : DEFAULT_LOCALE,
          createdAt: job.createdAt,
          // The attempt's trace context (the claim or lock span, else the creating one): the Runtime's spans join it.
          ...(job.traceparent ? { traceparent: job.traceparent } : {}),
          snapshot: snapshot
            ? {
                id: job.snapshotId!,
                contentHash: snapshot.contentHash,
                capturedAt: snapshot.capturedAt,
                content: snapshot.content,
              }
            : null,
          model: {
            provider: job.modelProvider,
            name: job.modelName,
            apiKeyMode: job.apiKeyMode,
            ...(apiKey ? { apiKey } : {}),
          },
        },
        lockUntil: job.lockUntil!,
      };
    }),
  );
}

/** The learner's key, decrypted only into the lease answer for the Runtime that holds the job. */
async function userKey(userId: string) {
  // The learner's current key, so a key replaced after the job was created is the one used.
  const credential = await activeCredential(getDb(), userId, { ciphertext: true });
  return credential ? decryptSecret(credential.ciphertext) : undefined;
}
