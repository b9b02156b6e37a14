import type { JobType } from "../generated/prisma/enums";
import { createJob } from "../jobs/create";
import type { Target } from "../jobs/snapshot";
import type { Actor } from "../jobs/state-machine";

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
 * existing job with created=false. Jobs are created one after another so that a refusal
 * (consent off, bad params, unknown target) stops before the rest and says why.
 */
export async function triggerAnalyses(input: TriggerInput) {
  const items = [];
  for (const jobType of input.jobTypes) {
    const { job, created } = await createJob({
      userId: input.userId,
      jobType,
      target: input.target,
      params: input.params?.[jobType],
      actor: input.actor,
    });
    items.push({ jobType, job, created });
  }
  return { items };
}
