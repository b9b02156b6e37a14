import type { JobType } from "../generated/prisma/enums";
import { assertTargetType, createJobs, parseParams } from "../jobs/create";
import { assertJobQuotaRoom } from "../jobs/quota";
import { captureSnapshot, type Target } from "../jobs/snapshot";
import { getDb } from "../db";
import type { Locale } from "../i18n/locales";
import { spendsQuota, type Actor } from "../jobs/state-machine";

export type TriggerInput = {
  userId: string;
  actor: Actor;
  target: Target;
  jobTypes: JobType[];
  /** Parameters per job type; types without parameters take none. */
  params?: Partial<Record<JobType, Record<string, unknown>>>;
  /** The language the learner's request resolved to; their saved language wins (createJob). */
  requestLocale?: Locale;
};

/**
 * Starts one or several analyses of one target, all or none. Each is de-duplicated on its own
 * (docs/contract.md#idempotency-and-de-duplication): a type already in flight for the same input answers its existing job with
 * created=false. Every type's parameters are checked before any job is made, so bad input creates
 * nothing; the new jobs are then counted against the quota and inserted in one transaction
 * (createJobs), so a trigger refused by the quota — even one racing another trigger of the same
 * learner — has created nothing. The target is captured once and every job of the trigger
 * analyses that same snapshot: the results agree with each other.
 */
export async function triggerAnalyses(input: TriggerInput) {
  for (const jobType of input.jobTypes) {
    parseParams(jobType, input.params?.[jobType]);
    assertTargetType(jobType, input.target);
  }
  if (spendsQuota(input.actor)) await assertJobQuotaRoom(input.userId, input.jobTypes);
  const snapshot = await captureSnapshot(getDb(), input.userId, input.target);
  const answers = await createJobs(
    input.jobTypes.map((jobType) => ({
      userId: input.userId,
      jobType,
      target: input.target,
      params: input.params?.[jobType],
      snapshotId: snapshot.id,
      requestLocale: input.requestLocale,
      actor: input.actor,
    })),
  );
  return { items: answers.map(({ job, created }, i) => ({ jobType: input.jobTypes[i]!, job, created })) };
}
