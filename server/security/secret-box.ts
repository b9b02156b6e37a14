import crypto from "node:crypto";
import { localSecret } from "./local-secret";

/**
 * AES-256-GCM for secrets at rest (learners' DeepSeek keys). The key comes from
 * APP_ENCRYPTION_KEY (32 bytes, base64 or hex); in zero-setup mode it is generated once into the
 * git-ignored data folder so restarts can still decrypt what was stored.
 * Stored form: "v1.<iv>.<tag>.<ciphertext>" in base64url.
 */
let cachedKey: Buffer | null = null;

function loadKey(): Buffer {
  if (cachedKey) return cachedKey;
  const raw = localSecret({ env: "APP_ENCRYPTION_KEY", file: "encryption-key" });
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  if (key.length !== 32) throw new Error("APP_ENCRYPTION_KEY must be 32 bytes (64 hex chars or base64)");
  cachedKey = key;
  return key;
}

export function encryptSecret(plaintext: string): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv("aes-256-gcm", loadKey(), iv, { authTagLength: TAG_BYTES });
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return ["v1", iv, tag, data].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Throws on a tampered or foreign ciphertext (GCM authentication). The tag length is pinned to
 * the 16 bytes encryptSecret writes: without authTagLength Node accepts a tag as short as 4
 * bytes, and a forger then needs ~2^32 tries instead of 2^128.
 */
export function decryptSecret(stored: string): string {
  const [version, iv, tag, data, extra] = stored.split(".");
  if (version !== "v1" || !iv || !tag || data === undefined || extra !== undefined)
    throw new Error("unrecognised ciphertext");
  const ivBytes = Buffer.from(iv, "base64url");
  const tagBytes = Buffer.from(tag, "base64url");
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES)
    throw new Error("unrecognised ciphertext: wrong IV or tag length");
  const decipher = crypto.createDecipheriv("aes-256-gcm", loadKey(), ivBytes, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tagBytes);
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
}

/**
 * A key of its own for `purpose`, derived from APP_ENCRYPTION_KEY (HMAC-SHA256), so a keyed hash
 * made with it never equals anything made with the encryption key itself.
 */
export function derivedKey(purpose: string): Buffer {
  return crypto.createHmac("sha256", loadKey()).update(`ajr:${purpose}`).digest();
}
