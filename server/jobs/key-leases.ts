import { Prisma } from "../generated/prisma/client";
import type { DbOrTx } from "../db";
import { now } from "../clock";
import { transition, type Actor } from "./state-machine";

/** What ends a key's leases, as the job's errorCode and errorMessage say it. */
export const KEY_LOST = {
  revoked: "the Runtime key holding the lease was revoked",
  scope: "the Runtime key's scopes no longer cover this job",
} as const;

/**
 * Ends the leases held under a Runtime key that was revoked, or whose new scopes (`which`, a
 * condition on j) no longer cover the job, in the transaction that revokes or changes the key
 * (server/runtime-keys.ts, which holds the key row FOR UPDATE, so no claim under the old key can
 * commit a new lease after this statement has read them). The holder's next heartbeat, result or
 * failure is LOCK_LOST; the job is pending again at once, without spending a retry.
 */
export async function endKeyLeases(
  tx: DbOrTx,
  keyId: string,
  which: Prisma.Sql,
  why: keyof typeof KEY_LOST,
  actor: Actor,
) {
  const at = now();
  const rows = await transition(tx, {
    action: "keyLost",
    where: Prisma.sql`j."lockedByKeyId" = ${keyId} AND ${which}`,
    to: Prisma.sql`CASE WHEN j."cancelRequested" THEN 'cancelled' ELSE 'pending' END`,
    set: Prisma.sql`"runAfter" = CASE WHEN t."toStatus" = 'pending' THEN ${at}::timestamp(3) ELSE j."runAfter" END,
      "finishedAt" = CASE WHEN t."toStatus" = 'pending' THEN NULL ELSE ${at}::timestamp(3) END,
      "lockedBy" = NULL, "lockUntil" = NULL, "leaseCheckAt" = NULL,
      "errorCode" = CASE WHEN t."toStatus" = 'cancelled' THEN 'CANCELLED' ELSE 'LEASE_REVOKED' END,
      "errorMessage" = ${KEY_LOST[why]}`,
    eventErrorCode: Prisma.sql`u."errorCode"`,
    eventErrorMessage: Prisma.sql`u."errorMessage"`,
    actor,
    now: at,
  });
  return rows.length;
}
