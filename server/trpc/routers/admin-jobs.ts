import { z } from "zod";
import { cancelJob } from "../../jobs/cancel";
import { rerunJob } from "../../jobs/rerun";
import { adminProcedure, router } from "../init";
import { adminJobSchema, jobIdInput, jobStatusSchema } from "../schemas";

/** An admin's actions on one job of any learner (reading jobs is admin.explorer). Audited in the domain. */
export const adminJobsRouter = router({
  /** A new job with the old one's input; only failed or cancelled jobs (docs/contract.md#states-and-transitions). */
  rerun: adminProcedure
    .input(jobIdInput)
    .output(z.object({ job: adminJobSchema, created: z.boolean() }))
    .mutation(({ ctx, input }) => rerunJob(input.jobId, { type: "admin", id: ctx.user.id })),

  cancel: adminProcedure
    .input(jobIdInput)
    .output(z.object({ status: jobStatusSchema, cancelRequested: z.boolean() }))
    .mutation(({ ctx, input }) => cancelJob(input.jobId, { type: "admin", id: ctx.user.id })),
});
