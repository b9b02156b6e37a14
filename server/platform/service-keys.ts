import { recordAudit } from "../audit";
import { getDb } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { bearerToken, hashKey, newKey, sameHash } from "../key-hash";
import { isScope, type Scope } from "./scopes";

export { DEFAULT_SCOPES, SCOPES, isScope, type Scope } from "./scopes";

/**
 * Service keys: what a learning platform's servers call the platform API (/api/v1) with. Made
 * and hashed like Runtime keys (server/key-hash.ts), each with scopes. Unlike Runtime keys they
 * are not cached: every call reads its key row by its unique hash (one index lookup), so a revoked
 * key answers 401 on its very next call, on every instance.
 */
const PREFIX = "ajs_";
export const CLI_ACTOR = "cli:service-key";

/** Creates a key and its audit row in one transaction; the key itself is in this answer only. */
export async function createServiceKey(name: string, scopes: readonly Scope[], actorId: string) {
  const unique = [...new Set(scopes)];
  if (!unique.length) throw new AppError("INVALID_REQUEST", "a service key needs at least one scope");
  const { key, hash, prefix } = newKey(PREFIX);
  const row = await getDb().$transaction(async (tx) => {
    const created = await tx.serviceKey.create({
      data: { name, hash, prefix, scopes: unique },
      select: { id: true, name: true, prefix: true, scopes: true, createdAt: true },
    });
    const scope = { keyId: created.id, name: created.name, prefix: created.prefix, scopes: created.scopes };
    await recordAudit({ actorId, action: "service_key.create", scope, count: 1 }, tx);
    return created;
  });
  return { ...row, key };
}

export function listServiceKeys() {
  return getDb().serviceKey.findMany({
    select: { id: true, name: true, prefix: true, scopes: true, createdAt: true, lastUsedAt: true, revokedAt: true },
    orderBy: { createdAt: "desc" },
  });
}

/** Revokes a key, audited in the same transaction; revoking a revoked key changes nothing and writes no row. */
export async function revokeServiceKey(id: string, actorId: string) {
  const count = await getDb().$transaction(async (tx) => {
    const { count } = await tx.serviceKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now() } });
    if (count) await recordAudit({ actorId, action: "service_key.revoke", scope: { keyId: id }, count }, tx);
    return count;
  });
  if (!count && !(await getDb().serviceKey.count({ where: { id } })))
    throw new AppError("NOT_FOUND", "service key not found");
  return { id, revoked: true as const, changed: count > 0 };
}

const lastUsedWritten = new Map<string, number>();
/** lastUsedAt is for people reading the key list: a 10 s resolution saves a write per call. */
const LAST_USED_RESOLUTION_MS = 10_000;

export type ServiceCaller = { keyId: string; scopes: Scope[] };

/** Checks the bearer key of a platform API call: 401 when missing, unknown or revoked. */
export async function verifyServiceKey(authorization: string | null): Promise<ServiceCaller> {
  const token = bearerToken(authorization);
  if (!token) throw new AppError("UNAUTHORIZED", "missing bearer token (Authorization: Bearer <service key>)");
  const presented = hashKey(token);
  const row = await getDb().serviceKey.findUnique({
    where: { hash: presented },
    select: { id: true, hash: true, scopes: true, revokedAt: true },
  });
  if (!row || !sameHash(row.hash, presented)) throw new AppError("UNAUTHORIZED", "invalid service key");
  if (row.revokedAt) throw new AppError("UNAUTHORIZED", "service key revoked");
  const t = Date.now();
  if ((lastUsedWritten.get(row.id) ?? 0) + LAST_USED_RESOLUTION_MS < t) {
    lastUsedWritten.set(row.id, t);
    await getDb().serviceKey.update({ where: { id: row.id }, data: { lastUsedAt: now() } });
  }
  return { keyId: row.id, scopes: row.scopes.filter(isScope) };
}

export function requireScope(caller: ServiceCaller, scope: Scope) {
  if (!caller.scopes.includes(scope)) throw new AppError("FORBIDDEN", `this service key lacks the ${scope} scope`);
}
