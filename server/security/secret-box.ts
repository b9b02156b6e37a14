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
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", loadKey(), iv);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return ["v1", iv, tag, data].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

/** Throws on a tampered or foreign ciphertext (GCM authentication). */
export function decryptSecret(stored: string): string {
  const [version, iv, tag, data] = stored.split(".");
  if (version !== "v1" || !iv || !tag || data === undefined) throw new Error("unrecognised ciphertext");
  const decipher = crypto.createDecipheriv("aes-256-gcm", loadKey(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
}
