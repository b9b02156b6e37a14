import { Prisma } from "../generated/prisma/client";
import type { ApiKeyMode } from "../generated/prisma/enums";
import { getDb } from "../db";
import { now } from "../clock";
import { cancelPending, requestCancel } from "./cancel";
import type { Actor } from "./state-machine";

/**
 * Turning AI off (docs/contract.md#consent-credentials-and-cancellation) cancels the learner's pending jobs and asks running ones to stop, in
 * the same transaction as the consent change; creations hold the consent row FOR SHARE, so none
 * slips in between. Turning it on only records consent.
 */
export async function setConsent(userId: string, granted: boolean, actor: Actor) {
  const at = now();
  return getDb().$transaction(async (tx) => {
    await tx.aiConsent.upsert({
      where: { userId },
      create: { userId, granted, grantedAt: granted ? at : null, revokedAt: granted ? null : at },
      update: granted ? { granted, grantedAt: at } : { granted, revokedAt: at },
    });
    if (granted) return { granted, cancelled: 0, cancelRequested: 0 };
    const cancelled = await cancelPending(tx, Prisma.sql`j."userId" = ${userId}`, actor);
    const asked = await requestCancel(tx, Prisma.sql`j."userId" = ${userId} AND NOT j."cancelRequested"`);
    return { granted, cancelled: cancelled.length, cancelRequested: asked.length };
  });
}

export async function getConsent(userId: string) {
  const row = await getDb().aiConsent.findUnique({ where: { userId } });
  return { granted: row?.granted ?? false, apiKeyMode: row?.apiKeyMode ?? ("platform_key" as ApiKeyMode) };
}
