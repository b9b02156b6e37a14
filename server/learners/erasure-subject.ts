import crypto from "node:crypto";
import { derivedKey } from "../security/secret-box";

/**
 * The erasure ledger: what lets an erasure be applied again to a database restored from a backup
 * taken before it (docs/operations.md, "Backup and restore"). The `learner.erase` audit row names
 * no one; it carries the erased account's *subject* instead: a keyed hash (HMAC-SHA256 under a key
 * derived from APP_ENCRYPTION_KEY) of the user id. Without the key it links to nothing, and once
 * the account is gone everywhere it matches nothing; in a restored older copy it matches exactly
 * the account that was erased, and only that one (a learner made again later has a new id).
 */
export const SUBJECT = /^v1\.[A-Za-z0-9_-]{43}$/;

export function erasureSubject(userId: string): string {
  return `v1.${crypto.createHmac("sha256", derivedKey("erasure-subject")).update(userId).digest("base64url")}`;
}
