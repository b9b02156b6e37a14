import { recordAudit } from "./audit";
import { getDb } from "./db";
import { now } from "./clock";
import { AppError } from "./errors";
import { getJobFeed, KEY_CHANNEL } from "./events/job-feed";
import { bearerToken, hashKey, newKey, sameHash } from "./key-hash";
import { DEFAULT_SCOPE, outsideScope, type KeyScope } from "./jobs/key-scope";
import { endKeyLeases } from "./jobs/key-leases";
import { Prisma } from "./generated/prisma/client";
import type { DbOrTx } from "./db";
import type { JobType } from "./generated/prisma/enums";
import { JOB_TYPES } from "./jobs/constants";

/** Runtime API keys: shown once at creation; only a SHA-256 hash and a short prefix are stored (server/key-hash.ts). */
const PREFIX = "ajr_";

/** Who made or revoked a key when no admin is signed in: the `runtime-key` command and other scripts. */
export const CLI_ACTOR = "cli:runtime-key";
export const SCRIPT_ACTOR = "script";

export { DEFAULT_SCOPE, FULL_SCOPE, type KeyScope } from "./jobs/key-scope";

function cleanScope(scope: Partial<KeyScope>, base: KeyScope): KeyScope {
  const jobTypes = scope.jobTypes ?? base.jobTypes;
  const unknown = jobTypes.filter((t) => !(JOB_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw new AppError("INVALID_REQUEST", `unknown job types: ${unknown.join(", ")}`);
  // A list is kept as given, so a key limited to some types never silently gains a type added later.
  return {
    jobTypes: [...new Set(jobTypes)].sort() as JobType[],
    mayReceiveLearnerKeys: scope.mayReceiveLearnerKeys ?? base.mayReceiveLearnerKeys,
  };
}

/** Creates a key and its audit row in one transaction; the key itself is in this answer only. */
export async function createRuntimeKey(name: string, actorId: string = SCRIPT_ACTOR, scope: Partial<KeyScope> = {}) {
  const { key, hash, prefix } = newKey(PREFIX);
  const scopes = cleanScope(scope, DEFAULT_SCOPE);
  const row = await getDb().$transaction(async (tx) => {
    const created = await tx.runtimeApiKey.create({
      data: { name, hash, prefix, ...scopes },
      select: { id: true, name: true, prefix: true, createdAt: true, jobTypes: true, mayReceiveLearnerKeys: true },
    });
    const audit = { keyId: created.id, name: created.name, prefix: created.prefix, ...scopes };
    await recordAudit({ actorId, action: "runtime_key.create", scope: audit, count: 1 }, tx);
    return created;
  });
  return { ...row, key };
}

export function listRuntimeKeys() {
  return getDb().runtimeApiKey.findMany({
    select: {
      id: true,
      name: true,
      prefix: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
      jobTypes: true,
      mayReceiveLearnerKeys: true,
    },
    orderBy: { createdAt: "desc" },
  });
}

/**
 * Takes the key row FOR UPDATE: a claim checks its key under FOR KEY SHARE in its own statement
 * (server/jobs/key-scope.ts keyStillValid), so a claim either commits before the change, whose
 * lease the change then ends, or sees the change and takes nothing.
 */
async function lockKeyRow(tx: DbOrTx, id: string) {
  await tx.$queryRaw(Prisma.sql`SELECT id FROM "RuntimeApiKey" WHERE id = ${id} FOR UPDATE`);
}

/**
 * Changes a key's scopes, audited (before and after) in the same transaction, and ends the
 * leases the key holds on jobs the new scopes no longer cover (docs/contract.md#consent-credentials-and-cancellation: a scope change applies to
 * held leases and waiting polls as a revocation does). Like a revoke, the change reaches every app
 * instance's key cache through NOTIFY: the key's next request, and every poll parked under it,
 * runs under the new scopes.
 */
export async function setRuntimeKeyScope(id: string, scope: Partial<KeyScope>, actorId: string = SCRIPT_ACTOR) {
  const updated = await getDb().$transaction(async (tx) => {
    await lockKeyRow(tx, id);
    const row = await tx.runtimeApiKey.findUnique({
      where: { id },
      select: { jobTypes: true, mayReceiveLearnerKeys: true },
    });
    if (!row) throw new AppError("NOT_FOUND", "runtime key not found");
    const next = cleanScope(scope, row);
    const changed = await tx.runtimeApiKey.update({
      where: { id },
      data: next,
      select: { id: true, jobTypes: true, mayReceiveLearnerKeys: true },
    });
    const leasesEnded = await endKeyLeases(tx, id, outsideScope(next), "scope", { type: "admin", id: actorId });
    await recordAudit(
      { actorId, action: "runtime_key.scope", scope: { keyId: id, before: row, after: next, leasesEnded }, count: 1 },
      tx,
    );
    await tx.$executeRaw`SELECT pg_notify(${KEY_CHANNEL}, ${id})`;
    return changed;
  });
  dropCachedKey(id);
  return updated;
}

/**
 * Revokes a key, audited in the same transaction (revoking a revoked key changes nothing and
 * writes no row), and ends every lease it holds: the jobs are pending again for other Runtimes.
 * This process drops it from its cache after the revoke commits (dropping it before would let a
 * read that started earlier put it back); other instances drop it when the NOTIFY arrives, which
 * the commit delivers. Either way a cache fill racing the revoke cannot keep it (see findKey), and
 * a claim racing it takes nothing once it has committed (lockKeyRow).
 */
export async function revokeRuntimeKey(id: string, actorId: string = SCRIPT_ACTOR) {
  const count = await getDb().$transaction(async (tx) => {
    await lockKeyRow(tx, id);
    const { count } = await tx.runtimeApiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now() } });
    if (count) {
      const leasesEnded = await endKeyLeases(tx, id, Prisma.sql`TRUE`, "revoked", { type: "admin", id: actorId });
      await recordAudit({ actorId, action: "runtime_key.revoke", scope: { keyId: id, leasesEnded }, count }, tx);
    }
    await tx.$executeRaw`SELECT pg_notify(${KEY_CHANNEL}, ${id})`;
    return count;
  });
  dropCachedKey(id);
  if (!count) {
    const exists = await getDb().runtimeApiKey.count({ where: { id } });
    if (!exists) throw new AppError("NOT_FOUND", "runtime key not found");
  }
  return { id, revoked: true as const };
}

const lastUsedWritten = new Map<string, number>();
const LAST_USED_RESOLUTION_MS = 10_000;

/**
 * Valid keys are cached per process for up to a minute, and only while this process listens to
 * revocations: a revoke drops the key here at once and, through NOTIFY, in every other app
 * instance within milliseconds. Without a live listener every request reads the database.
 */
type KeyRow = { id: string; hash: string; revokedAt: Date | null } & KeyScope;
const keyCache = new Map<string, KeyRow & { until: number }>();
const KEY_CACHE_MS = 60_000;
let listening = false;
/**
 * Bumped by every revocation this process learns of (its own, a NOTIFY, a listener gap). A cache
 * fill stores its row only if no revocation arrived while it was reading: otherwise a row read
 * just before a revoke committed could be cached after the revoke had dropped the key, and stay
 * usable for a minute.
 */
let revocations = 0;

function dropCachedKey(id: string) {
  revocations++;
  for (const [hash, v] of keyCache) if (v.id === id) keyCache.delete(hash);
  for (const wake of watchers.get(id) ?? []) wake();
}

/** Requests in flight that must learn at once of a change to their key: parked long polls. */
const watchers = new Map<string, Set<() => void>>();

/**
 * A signal that aborts when key `id` is revoked or its scopes change (in this process, or in
 * another through NOTIFY), or when the revocation listener had a gap and changes may have been
 * missed. `live` is false while no listener is connected: nothing would then abort the signal,
 * so the caller must read the key itself. Call stop() when done.
 */
export function watchKey(id: string) {
  const ctl = new AbortController();
  const wake = () => ctl.abort();
  const live = keyListenerUp();
  let set = watchers.get(id);
  if (!set) watchers.set(id, (set = new Set()));
  set.add(wake);
  return {
    signal: ctl.signal,
    live,
    stop() {
      set.delete(wake);
      if (!set.size && watchers.get(id) === set) watchers.delete(id);
    },
  };
}

function keyListenerUp(): boolean {
  if (!listening) {
    listening = true;
    const feed = getJobFeed();
    feed.on("key-revoked", (id: string) => dropCachedKey(id));
    feed.on("gap", () => {
      revocations++;
      keyCache.clear();
      for (const set of watchers.values()) for (const wake of set) wake();
    });
  }
  return getJobFeed().connected;
}

async function findKey(hash: string) {
  const useCache = keyListenerUp();
  const hit = keyCache.get(hash);
  if (useCache && hit && hit.until > Date.now()) return hit;
  const seen = revocations;
  const row = await getDb().runtimeApiKey.findUnique({
    where: { hash },
    select: { id: true, hash: true, revokedAt: true, jobTypes: true, mayReceiveLearnerKeys: true },
  });
  if (row && !row.revokedAt && useCache && seen === revocations)
    keyCache.set(hash, { ...row, until: Date.now() + KEY_CACHE_MS });
  return row;
}

/** Checks a bearer key on every Runtime request; revoked keys fail on the next request. */
export async function verifyRuntimeKey(authorization: string | null): Promise<{ keyId: string; scope: KeyScope }> {
  const token = bearerToken(authorization);
  if (!token) throw new AppError("UNAUTHORIZED", "missing bearer token (Authorization: Bearer <runtime key>)");
  const presented = hashKey(token);
  const row = await findKey(presented);
  const ok = !!row && sameHash(row.hash, presented);
  if (!ok || !row) throw new AppError("UNAUTHORIZED", "invalid runtime key");
  if (row.revokedAt) throw new AppError("UNAUTHORIZED", "runtime key revoked");
  // lastUsedAt is for people reading the key list: a 10 s resolution saves a write per request.
  const t = Date.now();
  if ((lastUsedWritten.get(row.id) ?? 0) + LAST_USED_RESOLUTION_MS < t) {
    lastUsedWritten.set(row.id, t);
    await getDb().runtimeApiKey.update({ where: { id: row.id }, data: { lastUsedAt: now() } });
  }
  return { keyId: row.id, scope: { jobTypes: row.jobTypes, mayReceiveLearnerKeys: row.mayReceiveLearnerKeys } };
}
