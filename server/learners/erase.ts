import { randomUUID } from "node:crypto";
import { Prisma } from "../generated/prisma/client";
import { getDb, type DbOrTx } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { signInCounterKeysOf } from "../auth/sign-in-throttle";
import { transition } from "../jobs/state-machine";
import { forgetSnapshots } from "../jobs/snapshot";
import { assertStorableUserId, auditActorId, eventActorType, type DataRightsActor } from "./actor";
import { erasureSubject } from "./erasure-subject";
import type { ErasureCounts } from "./erasure-counts";

/**
 * Erasure (docs/contract.md#learners-and-their-data, data rights), in one transaction:
 *  1. the learner's row is locked (a concurrent second erasure waits, then finds nobody: NOT_FOUND);
 *  2. every job still in flight is cancelled through the state machine (pending, expired, and held
 *     ones too: a Runtime holding one then gets 404 JOB_NOT_FOUND on its next call, never a 500);
 *  3. everything that names them is deleted: account, sessions, sign-in methods, credentials,
 *     consent, materials, knowledge points, quiz attempts, study sessions, flashcard marks,
 *     review cards and their review logs, review deck answers, daily digests sent, next-action ticks, snapshots, jobs with results, events, rejections, usage and webhook
 *     deliveries, quota counters and overrides, sign-in counters and verification tokens;
 *  4. audit rows and bulk runs that named them keep their place but name an erasure id instead;
 *  5. one audit row "learner.erase" records an erasure id, who asked (admin id, service key,
 *     "learner:self" or an operator's command), the counts and the ledger subject (a keyed hash of
 *     the user id, server/learners/erasure-ledger.ts), with no email, name or user id; a re-applied
 *     erasure (after a restore) names the erasure it re-applies.
 * What stays: the console rollups (counts per status, type and time bucket: no user id) and the
 * audit rows. Rollup counts include the erased jobs until the next recount (ROLLUP_RECOUNT_HOURS),
 * as for jobs removed by retention. Admin accounts are not erased this way.
 */
export async function eraseLearner(userId: string, actor: DataRightsActor, opts: { reapplies?: string } = {}) {
  assertStorableUserId(userId);
  // A concurrent job creation or activity write can deadlock with the erasure's locks; PostgreSQL
  // aborts one side, and the erasure starts again.
  for (let tries = 1; ; tries++) {
    try {
      return await eraseOnce(userId, actor, opts.reapplies);
    } catch (e) {
      if (tries >= 3 || !isRetryable(e)) throw e;
    }
  }
}

function isRetryable(e: unknown): boolean {
  const text = `${(e as Error)?.message ?? ""} ${JSON.stringify((e as { meta?: unknown })?.meta ?? "")}`;
  return /40P01|40001|deadlock|could not serialize/i.test(text);
}

export type { ErasureCounts } from "./erasure-counts";

async function eraseOnce(userId: string, actor: DataRightsActor, reapplies: string | undefined) {
  const erasureId = `erasure_${randomUUID()}`;
  const result = await getDb().$transaction(
    async (tx) => {
      const [user] = await tx.$queryRaw<{ id: string; email: string; role: string }[]>`
        SELECT id, email, role::text AS role FROM "User" WHERE id = ${userId} FOR UPDATE`;
      if (!user) throw new AppError("NOT_FOUND", "learner not found");
      if (user.role === "admin") throw new AppError("FORBIDDEN", "an admin account cannot be erased as a learner");

      const at = now();
      const cancelled = await transition(tx, {
        action: "eraseCancel",
        where: Prisma.sql`j."userId" = ${userId}`,
        to: Prisma.sql`'cancelled'`,
        set: Prisma.sql`"finishedAt" = ${at}::timestamp(3), "cancelRequested" = true, "errorCode" = 'CANCELLED', "errorMessage" = 'the learner was erased', "lockedBy" = NULL, "lockUntil" = NULL, "leaseCheckAt" = NULL`,
        eventErrorCode: Prisma.sql`'CANCELLED'`,
        actor: { type: eventActorType(actor), id: null },
        now: at,
      });
      const jobIds = (await tx.aiRuntimeJob.findMany({ where: { userId }, select: { id: true } })).map((j) => j.id);
      const snapshotIds = (await tx.snapshot.findMany({ where: { userId }, select: { id: true } })).map((s) => s.id);
      const counts: ErasureCounts = {
        ...(await deleteEverything(tx, user, jobIds)),
        cancelledInFlight: cancelled.length,
      };
      await scrubMentions(tx, user, erasureId);
      await recordAudit(
        {
          actorId: auditActorId(actor, { anonymous: true }),
          action: "learner.erase",
          scope: {
            erasureId,
            by: actor.type,
            counts,
            subject: erasureSubject(userId),
            ...(reapplies && { reapplies }),
          },
          count: 1,
        },
        tx,
      );
      return { erasureId, counts, snapshotIds, cancelledJobIds: cancelled.map((j) => j.id) };
    },
    { timeout: 300_000, maxWait: 10_000 },
  );
  forgetSnapshots(result.snapshotIds);
  return { erasureId: result.erasureId, counts: result.counts, cancelledJobIds: result.cancelledJobIds };
}

async function deleteEverything(tx: DbOrTx, user: { id: string; email: string }, jobIds: string[]) {
  const userId = user.id;
  const where = { userId };
  const counts: Partial<ErasureCounts> = {};
  counts.webhookDeliveries = (await tx.webhookDelivery.deleteMany({ where: { jobId: { in: jobIds } } })).count;
  counts.jobUsage = (await tx.jobUsage.deleteMany({ where })).count;
  // The cost panel's per-learner day and hour sums (its per-type sums are anonymous and stay).
  counts.usageDays = (await tx.usageDayLearner.deleteMany({ where })).count;
  counts.usageHours = (await tx.usageHourLearner.deleteMany({ where })).count;
  counts.flashcardMarks = (await tx.flashcardMark.deleteMany({ where })).count;
  counts.reviewLogs = (await tx.reviewLog.deleteMany({ where })).count;
  // The tombstones of cards the learner deleted count with the cards.
  counts.reviewCards =
    (await tx.reviewCardTombstone.deleteMany({ where })).count + (await tx.reviewCard.deleteMany({ where })).count;
  counts.reviewDecks = (await tx.reviewDeck.deleteMany({ where })).count;
  counts.digestSends = (await tx.digestSend.deleteMany({ where })).count;
  counts.nextActionTicks = (await tx.nextActionTick.deleteMany({ where })).count;
  // Results, events and rejections go with their jobs (ON DELETE CASCADE).
  counts.jobs = (await tx.aiRuntimeJob.deleteMany({ where })).count;
  counts.snapshots = (await tx.snapshot.deleteMany({ where })).count;
  // Answers waiting for her own mark count with her quiz attempts.
  counts.quizAttempts =
    (await tx.pendingAnswer.deleteMany({ where })).count + (await tx.quizAttempt.deleteMany({ where })).count;
  counts.studySessions = (await tx.studySession.deleteMany({ where })).count;
  counts.knowledgePoints = (await tx.knowledgePoint.deleteMany({ where })).count;
  counts.materials = (await tx.material.deleteMany({ where })).count;
  counts.quotaCounters = (await tx.quotaUsage.deleteMany({ where })).count;
  counts.quotaOverrides = (await tx.quotaLimit.deleteMany({ where })).count;
  counts.credentials = (await tx.userCredential.deleteMany({ where })).count;
  counts.consent = (await tx.aiConsent.deleteMany({ where })).count;
  counts.sessions = (await tx.session.deleteMany({ where })).count;
  counts.signInMethods = (await tx.account.deleteMany({ where })).count;
  const email = user.email.toLowerCase();
  // The invitation they accepted would go with the user (cascade); one never accepted (e.g. for
  // an account the platform API made) names only the email, so it goes by the email.
  counts.invitations = (await tx.invitation.deleteMany({ where: { OR: [{ userId }, { email }] } })).count;
  counts.verifications = (
    await tx.verification.deleteMany({
      where: {
        OR: [
          { identifier: { contains: userId } },
          { identifier: { contains: email, mode: "insensitive" } },
          { value: { contains: userId } },
          { value: { contains: email, mode: "insensitive" } },
        ],
      },
    })
  ).count;
  const keys = signInCounterKeysOf(email);
  counts.signInCounters = (
    await tx.signInCounter.deleteMany({
      where: { OR: [{ key: keys.account }, { key: { startsWith: keys.pairPrefix } }] },
    })
  ).count;
  await tx.user.delete({ where: { id: userId } });
  return counts as Omit<ErasureCounts, "cancelledInFlight">;
}

/** Replaces every string in a JSON value that mentions one of `needles` by `replacement`. */
function scrubJson(value: unknown, needles: string[], replacement: string): unknown {
  if (typeof value === "string") {
    const lower = value.toLowerCase();
    return needles.some((n) => lower.includes(n)) ? replacement : value;
  }
  if (Array.isArray(value)) return value.map((v) => scrubJson(v, needles, replacement));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubJson(v, needles, replacement)]));
  return value;
}

/**
 * Rows that are not the learner's but mention them (an admin's quota override or export in the
 * audit log, a bulk run scoped to them, an event they caused on a job that is not theirs) keep
 * their place in the history; the mention becomes the erasure id.
 */
async function scrubMentions(tx: DbOrTx, user: { id: string; email: string }, erasureId: string) {
  const needles = [user.id.toLowerCase(), user.email.toLowerCase()];
  const [id, email] = needles as [string, string];
  const audits = await tx.$queryRaw<{ id: bigint; actorId: string; scope: unknown }[]>`
    SELECT id, "actorId", scope FROM "AdminAuditLog"
    WHERE "actorId" = ${user.id} OR strpos(lower(scope::text), ${id}) > 0 OR strpos(lower(scope::text), ${email}) > 0`;
  for (const a of audits) {
    const actorId = a.actorId === user.id ? erasureId : a.actorId;
    await tx.$executeRaw`
      UPDATE "AdminAuditLog" SET "actorId" = ${actorId}, scope = ${JSON.stringify(scrubJson(a.scope, needles, erasureId))}::jsonb
      WHERE id = ${a.id}`;
  }
  const bulk = await tx.$queryRaw<{ id: string; actorId: string; scope: unknown; message: string | null }[]>`
    SELECT id, "actorId", scope, message FROM "BulkRun"
    WHERE "actorId" = ${user.id} OR strpos(lower(scope::text), ${id}) > 0 OR strpos(lower(scope::text), ${email}) > 0`;
  for (const b of bulk) {
    await tx.bulkRun.update({
      where: { id: b.id },
      data: {
        actorId: b.actorId === user.id ? erasureId : b.actorId,
        scope: scrubJson(b.scope, needles, erasureId) as Prisma.InputJsonValue,
      },
    });
  }
  await tx.jobEvent.updateMany({ where: { actorId: user.id }, data: { actorId: null } });
  await tx.quotaLimit.updateMany({ where: { updatedBy: user.id }, data: { updatedBy: erasureId } });
}

/**
 * The typed confirmation of the account page and the console: the learner's email, exactly (case
 * aside). A mismatch is INVALID_REQUEST and erases nothing.
 */
export async function eraseLearnerConfirmed(userId: string, typedEmail: string, actor: DataRightsActor) {
  assertStorableUserId(userId);
  const user = await getDb().user.findUnique({ where: { id: userId }, select: { email: true } });
  if (!user) throw new AppError("NOT_FOUND", "learner not found");
  if (typedEmail.trim().toLowerCase() !== user.email.toLowerCase())
    throw new AppError("INVALID_REQUEST", "type the account's email address exactly to confirm");
  return eraseLearner(userId, actor);
}
