import type { JobType } from "../generated/prisma/enums";
import { createJob, parseParams } from "../jobs/create";
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
 * existing job with created=false. Every type's parameters are checked before any job is made,
 * so bad input creates nothing; the jobs are then created together (they share one snapshot).
 */
export async function triggerAnalyses(input: TriggerInput) {
  for (const jobType of input.jobTypes) parseParams(jobType, input.params?.[jobType]);
  const items = await Promise.all(
    input.jobTypes.map(async (jobType) => {
      const { job, created } = await createJob({
        userId: input.userId,
        jobType,
        target: input.target,
        params: input.params?.[jobType],
        actor: input.actor,
      });
      return { jobType, job, created };
    }),
  );
  return { items };
}
