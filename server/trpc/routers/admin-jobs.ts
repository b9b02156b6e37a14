import { z } from "zod";
import { cancelJob } from "../../jobs/cancel";
import { getJobDetail, listJobs } from "../../jobs/queries";
import { rerunJob } from "../../jobs/rerun";
import { adminProcedure, router } from "../init";
import {
  adminEventSchema, adminJobSchema, jobFilterInput, jobIdInput, jobStatusSchema, pageInput, pageOf, resultSchema,
} from "../schemas";

/** Every learner's jobs, for the monitoring console. */
export const adminJobsRouter = router({
  list: adminProcedure
    .input(z.object({ ...pageInput, ...jobFilterInput, userId: z.string().min(1).max(64).optional() }).default({ page: 1, pageSize: 20 }))
    .output(pageOf(adminJobSchema))
    .query(({ input }) => listJobs(input)),

  get: adminProcedure
    .input(jobIdInput)
    .output(z.object({ job: adminJobSchema, result: resultSchema.nullable(), events: z.array(adminEventSchema) }))
    .query(({ input }) => getJobDetail(input.jobId)),

  /** A new job with the old one's input; only failed or cancelled jobs (SPEC §3). */
  rerun: adminProcedure
    .input(jobIdInput)
    .output(z.object({ job: adminJobSchema, created: z.boolean() }))
    .mutation(({ ctx, input }) => rerunJob(input.jobId, { type: "admin", id: ctx.user.id })),

  cancel: adminProcedure
    .input(jobIdInput)
    .output(z.object({ status: jobStatusSchema, cancelRequested: z.boolean() }))
    .mutation(({ ctx, input }) => cancelJob(input.jobId, { type: "admin", id: ctx.user.id })),
});
