import type { JobType } from "../generated/prisma/enums";
import { getDb } from "../db";
import { AppError } from "../errors";

/**
 * The stored output of one of the learner's own jobs of `jobType`: another learner's job (or none)
 * is not found, a job of another type or without a result is an invalid request, in the words given.
 */
export async function ownJobOutput(
  userId: string,
  jobId: string,
  jobType: JobType,
  words: { otherType: string; noResult: string },
): Promise<unknown> {
  const job = await getDb().aiRuntimeJob.findUnique({
    where: { id: jobId },
    select: { userId: true, jobType: true, result: { select: { output: true } } },
  });
  if (!job || job.userId !== userId) throw new AppError("JOB_NOT_FOUND", `job ${jobId} not found`);
  if (job.jobType !== jobType) throw new AppError("INVALID_REQUEST", words.otherType);
  if (!job.result) throw new AppError("INVALID_REQUEST", words.noResult);
  return job.result.output;
}
