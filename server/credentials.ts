import type { Prisma } from "./generated/prisma/client";
import type { ApiKeyMode } from "./generated/prisma/enums";
import { getDb, type DbOrTx } from "./db";
import { now } from "./clock";
import { AppError } from "./errors";
import { encryptSecret } from "./security/secret-box";

/**
 * A learner's own DeepSeek key (docs/contract.md#consent-credentials-and-cancellation): stored AES-256-GCM encrypted, shown only as its last
 * four characters, decrypted only into the lock answer for the Runtime holding a
 * user_deepseek_key job (server/jobs/lease.ts). Replacing or deleting a key erases the old
 * ciphertext; the row stays (deletedAt, last4) because jobs refer to it.
 * Every change holds the learner's User row FOR UPDATE, so concurrent changes serialize.
 */
const PROVIDER = "deepseek";

export type MaskedCredential = { provider: string; last4: string; createdAt: Date };

/** The learner's active key: not deleted (a replaced key is deleted, so there is at most one). */
const active = (userId: string) => ({ userId, provider: PROVIDER, deletedAt: null });

/**
 * The learner's active DeepSeek key row, with the columns asked for: the one lookup behind the
 * settings page, job creation (CREDENTIAL_REQUIRED), the lock answer and the in-app worker.
 * Newest first, so even a second active row (never written today) would not change the answer.
 */
export function activeCredential<S extends Prisma.UserCredentialSelect>(db: DbOrTx, userId: string, select: S) {
  return db.userCredential.findFirst({ where: active(userId), orderBy: { createdAt: "desc" }, select });
}

export async function getCredential(userId: string): Promise<MaskedCredential | null> {
  return activeCredential(getDb(), userId, { provider: true, last4: true, createdAt: true });
}

/** Sets the key, replacing any earlier one. */
export async function setCredential(userId: string, apiKey: string): Promise<MaskedCredential> {
  const ciphertext = encryptSecret(apiKey);
  return getDb().$transaction(async (tx) => {
    await lockUser(tx, userId);
    await eraseActive(tx, userId);
    return tx.userCredential.create({
      data: { userId, provider: PROVIDER, ciphertext, last4: apiKey.slice(-4) },
      select: { provider: true, last4: true, createdAt: true },
    });
  });
}

/**
 * Deletes the key. A learner whose jobs were set to use it goes back to the platform key, so
 * new jobs keep working instead of failing with CREDENTIAL_REQUIRED.
 */
export async function deleteCredential(userId: string): Promise<{ deleted: boolean; apiKeyMode: ApiKeyMode }> {
  return getDb().$transaction(async (tx) => {
    await lockUser(tx, userId);
    const deleted = (await eraseActive(tx, userId)) > 0;
    const consent = await tx.aiConsent.findUnique({ where: { userId }, select: { apiKeyMode: true } });
    if (consent?.apiKeyMode === "user_deepseek_key") {
      await tx.aiConsent.update({ where: { userId }, data: { apiKeyMode: "platform_key" } });
    }
    return { deleted, apiKeyMode: "platform_key" as ApiKeyMode };
  });
}

/** Choosing user_deepseek_key needs a stored key (the same rule createJob enforces). */
export async function chooseApiKeyMode(userId: string, apiKeyMode: ApiKeyMode): Promise<{ apiKeyMode: ApiKeyMode }> {
  return getDb().$transaction(async (tx) => {
    await lockUser(tx, userId);
    if (apiKeyMode === "user_deepseek_key") {
      const has = await activeCredential(tx, userId, { id: true });
      if (!has) throw new AppError("CREDENTIAL_REQUIRED", "store your DeepSeek key before choosing to use it");
    }
    await tx.aiConsent.upsert({ where: { userId }, create: { userId, apiKeyMode }, update: { apiKeyMode } });
    return { apiKeyMode };
  });
}

async function lockUser(tx: DbOrTx, userId: string) {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "User" WHERE id = ${userId} FOR UPDATE`;
  if (!rows.length) throw new AppError("NOT_FOUND", "user not found");
}

async function eraseActive(tx: DbOrTx, userId: string) {
  const { count } = await tx.userCredential.updateMany({
    where: active(userId),
    data: { ciphertext: "", deletedAt: now() },
  });
  return count;
}
