import { eventType } from "inngest";
import { z } from "zod";
import { jobTypeSchema } from "../jobs/schemas";

/** Typed events, named domain/noun.verb; every send carries an id so Inngest drops repeats. */
export const jobCreated = eventType("ai/job.created", {
  schema: z.object({ jobId: z.string(), userId: z.string(), jobType: jobTypeSchema }),
});

export const jobFinished = eventType("ai/job.finished", {
  schema: z.object({
    jobId: z.string(),
    userId: z.string(),
    status: z.enum(["succeeded", "failed", "cancelled"]),
    attemptNo: z.number().int(),
  }),
});
