import { z } from "zod";
import { cancelJob } from "../../jobs/cancel";
import { createJob } from "../../jobs/create";
import { getJobDetail, listJobs } from "../../jobs/queries";
import { jobTypeSchema } from "../../jobs/schemas";
import { TARGET_TYPES } from "../../jobs/constants";
import { userProcedure, router } from "../init";
import {
  apiKeyModeSchema,
  jobFilterInput,
  jobIdInput,
  jobStatusSchema,
  learnerEventSchema,
  learnerJobSchema,
  pageInput,
  pageOf,
  resultSchema,
} from "../schemas";

/** A learner's own jobs. Every query is scoped to ctx.user.id; another learner's job is "not found". */
export const jobsRouter = router({
  create: userProcedure
    .input(
      z.object({
        jobType: jobTypeSchema,
        target: z.object({ type: z.enum(TARGET_TYPES), id: z.string().min(1).max(64) }),
        params: z.record(z.string(), z.unknown()).optional(),
        idempotencyKey: z.string().min(1).max(128).optional(),
        /** Defaults to the learner's setting. */
        apiKeyMode: apiKeyModeSchema.optional(),
      }),
    )
    .output(z.object({ job: learnerJobSchema, created: z.boolean() }))
    .mutation(({ ctx, input }) =>
      createJob({
        ...input,
        userId: ctx.user.id,
        requestLocale: ctx.locale,
        actor: { type: ctx.user.role === "admin" ? "admin" : "learner", id: ctx.user.id },
      }),
    ),

  list: userProcedure
    .input(z.object({ ...pageInput, ...jobFilterInput }).default({ page: 1, pageSize: 20 }))
    .output(pageOf(learnerJobSchema))
    .query(({ ctx, input }) => listJobs({ ...input, userId: ctx.user.id })),

  get: userProcedure
    .input(jobIdInput)
    .output(z.object({ job: learnerJobSchema, result: resultSchema.nullable(), events: z.array(learnerEventSchema) }))
    .query(({ ctx, input }) => getJobDetail(input.jobId, { ownerId: ctx.user.id })),

  cancel: userProcedure
    .input(jobIdInput)
    .output(z.object({ status: jobStatusSchema, cancelRequested: z.boolean() }))
    .mutation(({ ctx, input }) =>
      cancelJob(input.jobId, { type: "learner", id: ctx.user.id }, { ownerId: ctx.user.id }),
    ),
});
