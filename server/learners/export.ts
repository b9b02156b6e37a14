import { getDb } from "../db";
import { now } from "../clock";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { assertStorableUserId, auditActorId, type DataRightsActor } from "./actor";

export const EXPORT_FORMAT = "ai-job-runtime/learner-export";
export const EXPORT_VERSION = 1;

const big = (v: bigint) => v.toString();

/**
 * Everything stored about one learner (SPEC §10, data rights), as one JSON-ready object: account
 * fields (no password hash, no session token, no OAuth tokens), sign-in methods, sessions,
 * consent, credentials as their last four characters only, materials, knowledge points, quiz
 * attempts, study sessions, flashcard marks, review cards with their review logs, next-action ticks, snapshots, jobs with params,
 * results, rejections, usage and events, quota counters and overrides. Other people are not
 * named: events and overrides leave out which admin or Runtime acted.
 *
 * Read in one REPEATABLE READ transaction, so the parts agree with each other; audited
 * ("learner.export") in it. An unknown learner is NOT_FOUND (also right after an erasure).
 */
export async function exportLearnerData(userId: string, actor: DataRightsActor) {
  assertStorableUserId(userId);
  return getDb().$transaction(
    async (tx) => {
      const user = await tx.user.findUnique({
        where: { id: userId },
        select: {
          id: true,
          email: true,
          name: true,
          role: true,
          locale: true,
          externalId: true,
          emailVerified: true,
          image: true,
          createdAt: true,
          updatedAt: true,
        },
      });
      if (!user) throw new AppError("NOT_FOUND", "learner not found");
      const where = { userId };
      const [
        signInMethods,
        sessions,
        consent,
        credentials,
        materials,
        knowledgePoints,
        quizAttempts,
        studySessions,
        flashcardMarks,
        nextActionTicks,
        reviewCards,
        snapshots,
        jobs,
        usage,
        quotaUsage,
        quotaOverrides,
      ] = [
        await tx.account.findMany({
          where,
          select: { providerId: true, accountId: true, scope: true, createdAt: true, updatedAt: true },
          orderBy: { createdAt: "asc" },
        }),
        await tx.session.findMany({
          where,
          select: { createdAt: true, updatedAt: true, expiresAt: true, ipAddress: true, userAgent: true },
          orderBy: { createdAt: "asc" },
        }),
        await tx.aiConsent.findUnique({
          where,
          select: { granted: true, apiKeyMode: true, grantedAt: true, revokedAt: true, updatedAt: true },
        }),
        await tx.userCredential.findMany({
          where,
          select: { id: true, provider: true, last4: true, createdAt: true, updatedAt: true, deletedAt: true },
          orderBy: { createdAt: "asc" },
        }),
        await tx.material.findMany({
          where,
          select: { id: true, externalId: true, title: true, content: true, createdAt: true },
          orderBy: { createdAt: "asc" },
        }),
        await tx.knowledgePoint.findMany({
          where,
          select: { id: true, externalId: true, materialId: true, title: true, description: true, createdAt: true },
          orderBy: { createdAt: "asc" },
        }),
        await tx.quizAttempt.findMany({
          where,
          select: {
            id: true,
            externalId: true,
            knowledgePointId: true,
            question: true,
            correct: true,
            answeredAt: true,
            sourceJobId: true,
          },
          orderBy: { answeredAt: "asc" },
        }),
        await tx.studySession.findMany({
          where,
          select: { id: true, externalId: true, materialId: true, startedAt: true, minutes: true, sourceJobId: true },
          orderBy: { startedAt: "asc" },
        }),
        await tx.flashcardMark.findMany({
          where,
          select: { jobId: true, cardIndex: true, createdAt: true },
          orderBy: [{ jobId: "asc" }, { cardIndex: "asc" }],
        }),
        await tx.nextActionTick.findMany({
          where,
          select: { jobId: true, actionIndex: true, createdAt: true },
          orderBy: [{ jobId: "asc" }, { actionIndex: "asc" }],
        }),
        await tx.reviewCard.findMany({
          where,
          omit: { userId: true },
          include: { logs: { omit: { userId: true, cardId: true }, orderBy: { reviewedAt: "asc" } } },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        }),
        await tx.snapshot.findMany({
          where,
          select: { id: true, targetType: true, targetId: true, contentHash: true, content: true, createdAt: true },
          orderBy: { createdAt: "asc" },
        }),
        await tx.aiRuntimeJob.findMany({
          where,
          omit: { lockedByKeyId: true, lockedBy: true, leaseCheckAt: true, userId: true, credentialId: true },
          include: {
            result: { omit: { jobId: true } },
            rejections: { omit: { jobId: true }, orderBy: { attemptNo: "asc" } },
            events: { omit: { jobId: true, actorId: true }, orderBy: { id: "asc" } },
          },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        }),
        await tx.jobUsage.findMany({ where, omit: { userId: true }, orderBy: { createdAt: "asc" } }),
        await tx.quotaUsage.findMany({ where, omit: { userId: true }, orderBy: { windowStart: "asc" } }),
        await tx.quotaLimit.findMany({ where, select: { metric: true, period: true, allowed: true, updatedAt: true } }),
      ];
      const usageOf = new Map<string, typeof usage>();
      for (const u of usage) usageOf.set(u.jobId, [...(usageOf.get(u.jobId) ?? []), u]);
      const jobIds = new Set(jobs.map((j) => j.id));
      const exportedAt = now();
      await recordAudit(
        {
          actorId: auditActorId(actor, { anonymous: false }),
          action: "learner.export",
          scope: { userId, by: actor.type },
          count: 1,
        },
        tx,
      );
      return {
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        exportedAt,
        account: { ...user, signInMethods },
        sessions,
        consent,
        credentials,
        materials: materials.map(({ content, ...m }) => ({ ...m, text: content })),
        knowledgePoints,
        quizAttempts,
        studySessions,
        flashcardMarks,
        nextActionTicks,
        reviewCards,
        snapshots,
        jobs: jobs.map((j) => ({
          ...j,
          rejections: j.rejections.map((r) => ({ ...r, id: big(r.id) })),
          events: j.events.map((e) => ({ ...e, id: big(e.id) })),
          usage: usageOf.get(j.id) ?? [],
        })),
        // Usage of jobs that retention has already pruned (JobUsage outlives them).
        usageOfPrunedJobs: usage.filter((u) => !jobIds.has(u.jobId)),
        quota: { usage: quotaUsage, overrides: quotaOverrides },
      };
    },
    { isolationLevel: "RepeatableRead", timeout: 120_000, maxWait: 10_000 },
  );
}

export type LearnerExport = Awaited<ReturnType<typeof exportLearnerData>>;
