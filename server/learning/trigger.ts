import type { JobType } from "../generated/prisma/enums";
import { createJob, parseParams } from "../jobs/create";
import { assertJobQuotaRoom } from "../jobs/quota";
import { captureSnapshot, type Target } from "../jobs/snapshot";
import { getDb } from "../db";
import { spendsQuota, type Actor } from "../jobs/state-machine";

export type TriggerInput = {
  userId: string;
  actor: Actor;
  target: Target;
  jobTypes: JobType[];
  /** Parameters per job type; types without parameters take none. */
  params?: Partial<Record<JobType, Record<string, unknown>>>;
};

/**
 * Starts one or several analyses of one target. Each goes through createJob, so each is
 * de-duplicated on its own (SPEC §6): a type already in flight for the same input answers its
 * existing job with created=false. Every type's parameters are checked before any job is made, so
 * bad input creates nothing. The target is captured once and every job of the trigger analyses
 * that same snapshot: the results agree with each other, and creation is quick enough that the
 * learner sees the jobs queue up. Jobs are created one after another, which keeps one trigger to
 * one database connection at a time.
 */
export async function triggerAnalyses(input: TriggerInput) {
  for (const jobType of input.jobTypes) parseParams(jobType, input.params?.[jobType]);
  if (spendsQuota(input.actor)) await assertJobQuotaRoom(input.userId, input.jobTypes);
  const snapshot = await captureSnapshot(getDb(), input.userId, input.target);
  const items = [];
  for (const jobType of input.jobTypes) {
    const { job, created } = await createJob({
      userId: input.userId,
      jobType,
      target: input.target,
      params: input.params?.[jobType],
      snapshotId: snapshot.id,
      actor: input.actor,
    });
    items.push({ jobType, job, created });
  }
  return { items };
}
