import { recordAudit } from "./admin/audit";
import { getDb } from "./db";
import { now } from "./clock";
import { AppError } from "./errors";
import { getJobFeed, KEY_CHANNEL } from "./events/job-feed";
import { bearerToken, hashKey, newKey, sameHash } from "./key-hash";

/** Runtime API keys: shown once at creation; only a SHA-256 hash and a short prefix are stored (server/key-hash.ts). */
const PREFIX = "ajr_";

/** Who made or revoked a key when no admin is signed in: the `runtime-key` command and other scripts. */
export const CLI_ACTOR = "cli:runtime-key";
export const SCRIPT_ACTOR = "script";

/** Creates a key and its audit row in one transaction; the key itself is in this answer only. */
export async function createRuntimeKey(name: string, actorId: string = SCRIPT_ACTOR) {
  const { key, hash, prefix } = newKey(PREFIX);
  const row = await getDb().$transaction(async (tx) => {
    const created = await tx.runtimeApiKey.create({
      data: { name, hash, prefix },
      select: { id: true, name: true, prefix: true, createdAt: true },
    });
    const scope = { keyId: created.id, name: created.name, prefix: created.prefix };
    await recordAudit({ actorId, action: "runtime_key.create", scope, count: 1 }, tx);
    return created;
  });
  return { ...row, key };
}

export function listRuntimeKeys() {
  return getDb().runtimeApiKey.findMany({
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true },
    orderBy: { createdAt: "desc" },
  });
}

/**
 * Revokes a key, audited in the same transaction (revoking a revoked key changes nothing and
 * writes no row). This process drops it from its cache after the revoke commits (dropping it
 * before would let a read that started earlier put it back); other instances drop it when the
 * NOTIFY arrives, which the commit delivers. Either way a cache fill racing the revoke cannot
 * keep it (see findKey).
 */
export async function revokeRuntimeKey(id: string, actorId: string = SCRIPT_ACTOR) {
  const count = await getDb().$transaction(async (tx) => {
    const { count } = await tx.runtimeApiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now() } });
    if (count) await recordAudit({ actorId, action: "runtime_key.revoke", scope: { keyId: id }, count }, tx);
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
const keyCache = new Map<string, { id: string; hash: string; revokedAt: Date | null; until: number }>();
const KEY_CACHE_MS = 60_000;
let listening = false;
/**
 * Bumped by every revocation this process learns of (its own, a NOTIFY, a listener gap). A cache
 * fill stores its row only if no revocation arrived while it was reading: otherwise a row read
 * just before a revoke committed could be cached after the revoke had dropped the key, and stay
 * usable for a minute (issue 13, item 7).
 */
let revocations = 0;

function dropCachedKey(id: string) {
  revocations++;
  for (const [hash, v] of keyCache) if (v.id === id) keyCache.delete(hash);
}

function keyListenerUp(): boolean {
  if (!listening) {
    listening = true;
    const feed = getJobFeed();
    feed.on("key-revoked", (id: string) => dropCachedKey(id));
    feed.on("gap", () => {
      revocations++;
      keyCache.clear();
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
    select: { id: true, hash: true, revokedAt: true },
  });
  if (row && !row.revokedAt && useCache && seen === revocations)
    keyCache.set(hash, { ...row, until: Date.now() + KEY_CACHE_MS });
  return row;
}

/** Checks a bearer key on every Runtime request; revoked keys fail on the next request. */
export async function verifyRuntimeKey(authorization: string | null): Promise<{ keyId: string }> {
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
  return { keyId: row.id };
}
