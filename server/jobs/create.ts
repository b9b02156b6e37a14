import { Prisma, type AiRuntimeJob } from "../generated/prisma/client";
import { CHANNEL, jobChangePayload } from "./job-change";
import type { ApiKeyMode, JobType } from "../generated/prisma/enums";
import { getDb, type DbOrTx } from "../db";
import { jobConfig } from "../config";
import { now } from "../clock";
import { AppError, isUniqueViolation } from "../errors";
import { IN_FLIGHT_STATUSES, MIN_TIMEOUT_SECONDS } from "./constants";
import { nextQueueTurn } from "./fair-queue";
import { hashJson } from "./hashing";
import { assertJobQuotaRoom, assertTokenBudget, consumeJobsQuota, jobQuotaRules } from "./quota";
import { paramsSchemas } from "./schemas";
import { targetTypesOf } from "../job-types";
import { prepareSnapshot, storeSnapshot, type Target } from "./snapshot";
import { spendsQuota, type Actor } from "./state-machine";
import { activeCredential } from "../credentials";
import { DEFAULT_LOCALE, isLocale, type Locale } from "../i18n/locales";
import { toJobView } from "./views";
import { withCreationSpans } from "../observability/job-spans";

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
  /**
   * The language the job's text is produced in, when it is fixed (an admin re-run keeps the old
   * job's). Otherwise the learner's saved language (User.locale), else `requestLocale`, else English.
   */
  locale?: Locale;
  /** The language the learner's own request resolved to (cookie, Accept-Language): used when they saved none. */
  requestLocale?: Locale;
  actor: Actor;
  /** Runs in the creating transaction (a re-run's audit row): both commit or neither does. */
  alsoInTransaction?: (tx: DbOrTx, jobId: string) => Promise<unknown>;
};

/** A type that runs on some targets only (its module's `targets`) refuses the others: 400 INVALID_REQUEST, nothing written. */
export function assertTargetType(jobType: JobType, target: Target) {
  const allowed = targetTypesOf(jobType);
  if (!allowed.includes(target.type))
    throw new AppError("INVALID_REQUEST", `${jobType} runs on a ${allowed.join(" or ")}, not on a ${target.type}`, {
      jobType,
      targetType: target.type,
      allowedTargetTypes: allowed,
    });
}

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

type Created = { job: ReturnType<typeof toJobView>; created: boolean };

/** A job ready to insert: everything read and checked before the creating transaction. */
type Planned = {
  input: CreateJobInput;
  data: Prisma.AiRuntimeJobUncheckedCreateInput;
  where: { userId: string; jobType: JobType; targetType: Target["type"]; targetId: string };
  key: string | null;
  inputHash: string;
};

/**
 * Creates a job, idempotently (docs/contract.md#idempotency-and-de-duplication): the same idempotency key returns the job it created;
 * without a key, an identical request (type, target, params, snapshot content) returns the one
 * still in flight. Both are enforced under a transaction advisory lock per key (the job table is
 * partitioned, so it cannot hold a unique index without the id), so racing creators get one job.
 * Creation holds the learner's consent row FOR SHARE: a concurrent revoke waits, then cancels it.
 * A learner's own creation also counts against their quota (server/jobs/quota.ts), atomically;
 * repeats answered with an existing job count nothing.
 */
export async function createJob(input: CreateJobInput): Promise<Created> {
  const [answer] = await createJobs([input]);
  return answer!;
}

/**
 * Creates several jobs of one learner all or none (a multi-type trigger, server/learning/trigger.ts):
 * each is read and checked on its own (de-duplication answers an existing job, created=false), then
 * the new ones are counted against the quota and inserted in ONE transaction, so a trigger refused
 * by the quota (or by anything else) has created nothing.
 */
export async function createJobs(inputs: CreateJobInput[]): Promise<Created[]> {
  for (let tries = 0; ; tries++) {
    const plans = [];
    for (const input of inputs) plans.push(await planJob(input));
    const fresh = plans.filter((p): p is Planned => !("job" in p));
    if (!fresh.length) return plans as Created[];
    try {
      const made = await insertJobs(fresh);
      return plans.map((p) => ("job" in p ? p : { job: toJobView(made.get(p)!), created: true }));
    } catch (e) {
      if (!(e instanceof CreationRaceLost) && !isUniqueViolation(e)) throw e;
      // Lost a creation race: the next round finds the winner's job (created=false) and makes the rest.
      if (tries >= 2) throw e;
    }
  }
}

/**
 * Everything a creation reads and checks before its transaction: params, an existing job (same
 * key, or the same input in flight), consent, the learner's key, the snapshot (content-addressed,
 * so one stored for a creation that then fails is the one a retry uses), the quota's room.
 */
async function planJob(input: CreateJobInput): Promise<Created | Planned> {
  const db = getDb();
  const params = parseParams(input.jobType, input.params);
  assertTargetType(input.jobType, input.target);
  if (input.timeoutSeconds !== undefined && !(input.timeoutSeconds >= MIN_TIMEOUT_SECONDS))
    throw new AppError("INVALID_PARAMS", `timeoutSeconds is at least ${MIN_TIMEOUT_SECONDS}`);
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

  const consent = await db.aiConsent.findUnique({
    where: { userId: input.userId },
    include: { user: { select: { locale: true } } },
  });
  if (!consent?.granted) throw new AppError("CONSENT_REQUIRED", "AI analysis is turned off for this learner");
  const apiKeyMode = input.apiKeyMode ?? consent.apiKeyMode;
  let credentialId: string | null = null;
  if (apiKeyMode === "user_deepseek_key") {
    const credential = await activeCredential(db, input.userId, { id: true });
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
  const locale = jobLocale(input, consent.user.locale);
  // The language is part of the input: the same analysis asked for in another language is another job.
  const inputHash = hashJson({
    ...where,
    params,
    snapshot: given?.contentHash ?? prepared!.contentHash,
    apiKeyMode,
    ...(locale === DEFAULT_LOCALE ? {} : { locale }),
  });

  if (!key) {
    const inflight = await findInFlight(db, input.userId, inputHash);
    if (inflight) return { job: toJobView(inflight), created: false };
  }
  // Over quota or budget: refuse before storing the snapshot, so a refusal writes nothing. The
  // transaction counts the jobs atomically; this read only saves the work when a limit is plainly
  // hit. The token budget is admitted on tokens already spent (usage, not creation, raises it), so
  // it is checked here only and the transaction stays short.
  if (spendsQuota(input.actor)) {
    await assertJobQuotaRoom(input.userId, [input.jobType]);
    await assertTokenBudget(db, input.userId, apiKeyMode, now());
  }
  const snapshot = given ?? (await storeSnapshot(db, input.userId, prepared!));
  return {
    input,
    where,
    key,
    inputHash,
    data: {
      ...where,
      params: params as Prisma.InputJsonValue,
      idempotencyKey: key,
      priority: input.priority ?? 0,
      apiKeyMode,
      credentialId,
      snapshotId: snapshot.id,
      inputHash,
      maxRetryCount: input.maxRetryCount ?? jobConfig.defaultMaxRetryCount,
      timeoutSeconds: input.timeoutSeconds ?? jobConfig.defaultTimeoutSeconds,
      retriedFromJobId: input.retriedFromJobId ?? null,
      outputSchemaVersion: "v1",
      locale,
    },
  };
}

/**
 * The creating transaction, as short as it can be: consent held FOR SHARE, the quota counted in
 * one upsert per limit, the rows and their events inserted, the pushes queued. It runs under a
 * deadline (JOB_CREATE_TIMEOUT_MS) that PostgreSQL enforces on every wait inside it (lock_timeout,
 * statement_timeout) and Prisma on the whole: a creation that cannot get its rows in time is
 * rolled back and answered 503 UNAVAILABLE with Retry-After (server/errors.ts), never a 500.
 */
async function insertJobs(plans: Planned[]) {
  const db = getDb();
  const first = plans[0]!.input;
  if (plans.some((p) => p.input.userId !== first.userId)) throw new Error("createJobs makes one learner's jobs");
  const userId = first.userId;
  const learnerRules = spendsQuota(first.actor) ? await jobQuotaRules(db, userId) : null;
  // Fair-queue turns, read before the transaction to keep it short (an ordering hint: two
  // concurrent creations of one learner may share a turn, age breaks the tie). Jobs made together
  // take consecutive turns, so one trigger's jobs interleave with other learners'.
  const turns = new Map<number, number>();
  for (const p of plans) {
    const priority = p.input.priority ?? 0;
    const turn = turns.has(priority) ? turns.get(priority)! + 1 : await nextQueueTurn(db, userId, priority);
    turns.set(priority, turn);
    p.data.queueTurn = turn;
  }
  const budget = jobConfig.createTimeoutMs;
  return withCreationSpans(plans, () =>
    db.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${Math.floor(budget)}`);
        await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${Math.floor(budget)}`);
        const granted = await tx.$queryRaw<{ granted: boolean }[]>`
        SELECT granted FROM "AiConsent" WHERE "userId" = ${userId} FOR SHARE`;
        if (!granted[0]?.granted) throw new AppError("CONSENT_REQUIRED", "AI analysis is turned off for this learner");
        await claimCreationKeys(tx, plans);
        const at = now();
        // Learners' own requests count against their quota; admin re-runs, the weekly analyses and
        // scripts do not. In this transaction, so a creation that rolls back counts nothing.
        if (learnerRules)
          await consumeJobsQuota(
            tx,
            userId,
            learnerRules,
            plans.map((p) => p.data.jobType as JobType),
            at,
          );
        const made = new Map<Planned, AiRuntimeJob & { result: null }>();
        for (const p of plans) {
          // No include: a plain INSERT … RETURNING cannot come back empty (an include reads the row
          // again, which found nothing once a timed-out transaction had been closed).
          const created = await tx.aiRuntimeJob.create({ data: { ...p.data, runAfter: at, createdAt: at } });
          made.set(p, { ...created, result: null });
          await tx.jobEvent.create({
            data: {
              jobId: created.id,
              fromStatus: null,
              toStatus: "pending",
              actorType: p.input.actor.type,
              actorId: p.input.actor.id,
              attemptNo: 0,
              createdAt: at,
            },
          });
          await p.input.alsoInTransaction?.(tx, created.id);
          // runAfter left out: a new job is visible at once (a waiter must not wait for a timer on the app's clock).
          await tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${jobChangePayload({ ...created, runAfter: null }, { created: true })})`;
        }
        return made;
      },
      { timeout: budget + 1_000, maxWait: budget },
    ),
  );
}

/** Another creation made one of these jobs first: the next round reads it (created=false). */
class CreationRaceLost extends Error {}

/**
 * What a unique index would do, on a partitioned table: each plan's creation key (its idempotency
 * key, else its input while a job of it is in flight) is locked for the rest of the transaction, in
 * one order so two triggers cannot deadlock, then looked up. The lock waits for a racing creator's
 * commit, and each statement here sees what committed before it began, so the loser finds the
 * winner's job.
 */
async function claimCreationKeys(tx: DbOrTx, plans: Planned[]) {
  const keys = plans.map((p) =>
    JSON.stringify(
      p.key
        ? ["key", p.key, p.where.userId, p.where.jobType, p.where.targetType, p.where.targetId]
        : ["input", p.where.userId, p.inputHash],
    ),
  );
  await tx.$executeRaw`
    SELECT pg_advisory_xact_lock(k) FROM (
      SELECT DISTINCT hashtextextended(t, 0) AS k FROM unnest(${keys}::text[]) t ORDER BY 1) s`;
  for (const p of plans) {
    const taken = p.key
      ? await tx.aiRuntimeJob.findFirst({ where: { ...p.where, idempotencyKey: p.key }, select: { id: true } })
      : await findInFlight(tx, p.where.userId, p.inputHash);
    if (taken) throw new CreationRaceLost();
  }
}

/** The job's language: fixed by the caller, else the learner's saved one, else the request's, else English. */
export function jobLocale(input: Pick<CreateJobInput, "locale" | "requestLocale">, saved: string | null): Locale {
  return input.locale ?? (isLocale(saved) ? saved : undefined) ?? input.requestLocale ?? DEFAULT_LOCALE;
}

function findInFlight(db: DbOrTx, userId: string, inputHash: string) {
  return db.aiRuntimeJob.findFirst({
    where: { userId, inputHash, status: { in: [...IN_FLIGHT_STATUSES] } },
    orderBy: { createdAt: "desc" },
    include: jobInclude,
  });
}
