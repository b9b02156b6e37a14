import { Prisma } from "../generated/prisma/client";
import { CHANNEL, jobChangePayload } from "../events/job-change";
import type { ApiKeyMode, JobType } from "../generated/prisma/enums";
import { getDb, type DbOrTx } from "../db";
import { jobConfig } from "../config";
import { now } from "../clock";
import { AppError, isUniqueViolation } from "../errors";
import { IN_FLIGHT_STATUSES } from "./constants";
import { nextQueueTurn } from "./fair-queue";
import { hashJson } from "./hashing";
import { assertJobQuotaRoom, assertTokenBudget, consumeJobQuota } from "./quota";
import { paramsSchemas } from "./schemas";
import { prepareSnapshot, storeSnapshot, type Target } from "./snapshot";
import { spendsQuota, type Actor } from "./state-machine";
import { toJobView } from "./views";

export type CreateJobInput = {
  userId: string;
  jobType: JobType;
  target: Target;
  params?: unknown;
  idempotencyKey?: string | null;
  priority?: number;
  /** Defaults to the learner's own setting (AiConsent.apiKeyMode). */
  apiKeyMode?: ApiKeyMode;
  maxRetryCount?: number;
  timeoutSeconds?: number;
  /** Admin re-run: run the old job's snapshot again instead of capturing a new one. */
  snapshotId?: string;
  retriedFromJobId?: string;
  actor: Actor;
  /** Runs in the creating transaction (a re-run's audit row): both commit or neither does. */
  alsoInTransaction?: (tx: DbOrTx, jobId: string) => Promise<unknown>;
};

export function parseParams(jobType: JobType, params: unknown) {
  const parsed = paramsSchemas[jobType].safeParse(params ?? {});
  if (!parsed.success) {
    throw new AppError(
      "INVALID_PARAMS",
      `invalid params for ${jobType}`,
      parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    );
  }
  return parsed.data as Record<string, unknown>;
}

const jobInclude = { result: { select: { id: true } } } as const;

/**
 * Creates a job, idempotently (SPEC §6): the same idempotency key returns the job it created;
 * without a key, an identical request (type, target, params, snapshot content) returns the one
 * still in flight. Both are enforced by unique indexes, so racing creators get one job.
 * Creation holds the learner's consent row FOR SHARE: a concurrent revoke waits, then cancels it.
 * A learner's own creation also counts against their quota (server/jobs/quota.ts), atomically;
 * repeats answered with an existing job count nothing.
 */
export async function createJob(input: CreateJobInput) {
  const db = getDb();
  const params = parseParams(input.jobType, input.params);
  const key = input.idempotencyKey ?? null;
  const where = {
    userId: input.userId,
    jobType: input.jobType,
    targetType: input.target.type,
    targetId: input.target.id,
  };

  if (key) {
    const existing = await db.aiRuntimeJob.findFirst({ where: { ...where, idempotencyKey: key }, include: jobInclude });
    if (existing) return { job: toJobView(existing), created: false };
  }

  const consent = await db.aiConsent.findUnique({ where: { userId: input.userId } });
  if (!consent?.granted) throw new AppError("CONSENT_REQUIRED", "AI analysis is turned off for this learner");
  const apiKeyMode = input.apiKeyMode ?? consent.apiKeyMode;
  let credentialId: string | null = null;
  if (apiKeyMode === "user_deepseek_key") {
    const credential = await db.userCredential.findFirst({
      where: { userId: input.userId, provider: "deepseek", deletedAt: null },
      orderBy: { createdAt: "desc" },
      select: { id: true },
    });
    if (!credential)
      throw new AppError("CREDENTIAL_REQUIRED", "choose the platform key or store your DeepSeek key first");
    credentialId = credential.id;
  }

  const given = input.snapshotId
    ? await db.snapshot.findFirstOrThrow({
        where: { id: input.snapshotId, userId: input.userId },
        select: { id: true, contentHash: true },
      })
    : null;
  const prepared = given ? null : await prepareSnapshot(db, input.userId, input.target);
  const inputHash = hashJson({ ...where, params, snapshot: given?.contentHash ?? prepared!.contentHash, apiKeyMode });

  if (!key) {
    const inflight = await findInFlight(db, input.userId, inputHash);
    if (inflight) return { job: toJobView(inflight), created: false };
  }
  // Over quota: refuse before storing the snapshot, so a refusal writes nothing. The transaction
  // below counts the job atomically; this read only saves the work when the limit is plainly hit.
  if (spendsQuota(input.actor)) {
    await assertJobQuotaRoom(input.userId, [input.jobType]);
    await assertTokenBudget(db, input.userId, apiKeyMode, now());
  }
  const snapshot = given ?? (await storeSnapshot(db, input.userId, prepared!));

  try {
    // The job's fair-queue turn, read before the transaction to keep it short (it is an ordering
    // hint: two concurrent creations of one learner may share a turn, age breaks the tie).
    const queueTurn = await nextQueueTurn(db, input.userId, input.priority ?? 0);
    const job = await db.$transaction(async (tx) => {
      const granted = await tx.$queryRaw<{ granted: boolean }[]>`
        SELECT granted FROM "AiConsent" WHERE "userId" = ${input.userId} FOR SHARE`;
      if (!granted[0]?.granted) throw new AppError("CONSENT_REQUIRED", "AI analysis is turned off for this learner");
      const at = now();
      // Learners' own requests count against their quota; admin re-runs, the weekly review and
      // scripts do not. In this transaction, so a creation that rolls back counts nothing.
      if (spendsQuota(input.actor)) {
        await consumeJobQuota(tx, input.userId, input.jobType, at);
        await assertTokenBudget(tx, input.userId, apiKeyMode, at);
      }
      const created = await tx.aiRuntimeJob.create({
        data: {
          ...where,
          params: params as Prisma.InputJsonValue,
          idempotencyKey: key,
          priority: input.priority ?? 0,
          queueTurn,
          apiKeyMode,
          credentialId,
          snapshotId: snapshot.id,
          inputHash,
          runAfter: at,
          createdAt: at,
          maxRetryCount: input.maxRetryCount ?? jobConfig.defaultMaxRetryCount,
          timeoutSeconds: input.timeoutSeconds ?? jobConfig.defaultTimeoutSeconds,
          retriedFromJobId: input.retriedFromJobId ?? null,
          outputSchemaVersion: "v1",
        },
        include: jobInclude,
      });
      await tx.jobEvent.create({
        data: {
          jobId: created.id,
          fromStatus: null,
          toStatus: "pending",
          actorType: input.actor.type,
          actorId: input.actor.id,
          attemptNo: 0,
          createdAt: at,
        },
      });
      await input.alsoInTransaction?.(tx, created.id);
      // runAfter left out: a new job is visible at once (a waiter must not wait for a timer on the app's clock).
      await tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${jobChangePayload({ ...created, runAfter: null }, { created: true })})`;
      return created;
    });
    return { job: toJobView(job), created: true };
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    // Lost a creation race: the winner's job is the answer.
    const winner = key
      ? await db.aiRuntimeJob.findFirst({ where: { ...where, idempotencyKey: key }, include: jobInclude })
      : await findInFlight(db, input.userId, inputHash);
    if (!winner) throw e;
    return { job: toJobView(winner), created: false };
  }
}

function findInFlight(db: DbOrTx, userId: string, inputHash: string) {
  return db.aiRuntimeJob.findFirst({
    where: { userId, inputHash, status: { in: [...IN_FLIGHT_STATUSES] } },
    orderBy: { createdAt: "desc" },
    include: jobInclude,
  });
}
