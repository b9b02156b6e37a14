import { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { AppError } from "../errors";
import type { JobType } from "../generated/prisma/enums";

/**
 * A key's scopes (docs/contract.md#consent-credentials-and-cancellation): the job types it may claim and lock (empty: every type), and whether
 * it may run jobs on a learner's own DeepSeek key — and so receive that key in a lease. A key
 * without that scope never takes such a job (claim and poll pass it by, lock answers
 * JOB_NOT_LOCKABLE), so a learner's job never runs on the platform's key against their choice.
 */
export type KeyScope = { jobTypes: JobType[]; mayReceiveLearnerKeys: boolean };
/** What a new key may do unless created with more: every type, no learner keys. */
export const DEFAULT_SCOPE: KeyScope = { jobTypes: [], mayReceiveLearnerKeys: false };
/** The dev/demo reference Runtime's and the test Runtimes' keys: everything. */
export const FULL_SCOPE: KeyScope = { jobTypes: [], mayReceiveLearnerKeys: true };

const typeArray = (types: readonly JobType[]) =>
  types.length
    ? Prisma.sql`ARRAY[${Prisma.join(types.map((t) => Prisma.sql`${t}::"JobType"`))}]`
    : Prisma.sql`'{}'::"JobType"[]`;

/**
 * The claim's own check of its key (docs/contract.md#consent-credentials-and-cancellation: a revocation or scope change committed before a claim
 * commits wins over it): the key is not revoked and still has the scopes the request was
 * authenticated with, read in the claiming statement with the key row locked FOR KEY SHARE.
 * Revocation and scope changes lock the row FOR UPDATE first (server/runtime-keys.ts), so either
 * the claim commits first and the change then ends the lease it took (leasesOutOfScope), or the
 * change commits first and this check, re-evaluated on the row's newest version, takes nothing.
 * FOR KEY SHARE does not wait for the lastUsedAt update of ordinary requests.
 */
export function keyStillValid(keyId: string, scope: KeyScope, lock: boolean) {
  const types = typeArray(scope.jobTypes);
  return Prisma.sql`EXISTS (SELECT 1 FROM "RuntimeApiKey" k WHERE k.id = ${keyId} AND k."revokedAt" IS NULL
    AND k."jobTypes" @> ${types} AND k."jobTypes" <@ ${types} AND k."mayReceiveLearnerKeys" = ${scope.mayReceiveLearnerKeys}${lock ? Prisma.sql` FOR KEY SHARE` : Prisma.empty})`;
}

/** Jobs (as j) that a key with these scopes may not hold: its lease ends when the scopes change to these. */
export function outsideScope(scope: KeyScope) {
  const types = scope.jobTypes.length
    ? Prisma.sql`j."jobType" <> ALL(${typeArray(scope.jobTypes)})`
    : Prisma.sql`FALSE`;
  return scope.mayReceiveLearnerKeys ? types : Prisma.sql`(${types} OR j."apiKeyMode" = 'user_deepseek_key')`;
}

/** A key's scopes as committed now, or null when it is revoked or gone (never from a cache). */
export async function currentScope(keyId: string): Promise<KeyScope | null> {
  const row = await getDb().runtimeApiKey.findUnique({
    where: { id: keyId },
    select: { revokedAt: true, jobTypes: true, mayReceiveLearnerKeys: true },
  });
  return row && !row.revokedAt ? { jobTypes: row.jobTypes, mayReceiveLearnerKeys: row.mayReceiveLearnerKeys } : null;
}

export const sameScope = (a: KeyScope, b: KeyScope) =>
  a.mayReceiveLearnerKeys === b.mayReceiveLearnerKeys &&
  a.jobTypes.length === b.jobTypes.length &&
  a.jobTypes.every((t) => b.jobTypes.includes(t));

/** Thrown to a request whose key was revoked while it was being served. */
export const keyRevoked = () => new AppError("UNAUTHORIZED", "runtime key revoked");

/** Why a key's scopes forbid a job, or null. */
export function scopeRefusal(job: { jobType: JobType; apiKeyMode: string }, scope: KeyScope | undefined) {
  if (!scope) return null;
  if (scope.jobTypes.length && !scope.jobTypes.includes(job.jobType))
    return `this Runtime key may not run ${job.jobType} jobs (its scope: ${scope.jobTypes.join(", ")})`;
  if (job.apiKeyMode === "user_deepseek_key" && !scope.mayReceiveLearnerKeys)
    return "this job runs on the learner's own key, which this Runtime key may not receive";
  return null;
}
