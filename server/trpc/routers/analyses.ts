import { z } from "zod";
import { TARGET_TYPES } from "../../jobs/constants";
import { JOB_TYPES, jobTypeSchema, TYPES_WITH_PARAMS } from "../../job-types";
import { triggerAnalyses } from "../../learning/trigger";
import { userProcedure, router } from "../init";
import { learnerJobSchema } from "../schemas";

const paramsInput = z.record(z.string(), z.unknown()).optional();

/** Starting analyses from the learner page: several job types for one target in one call. */
export const analysesRouter = router({
  /** Each type is de-duplicated on its own: one in flight for the same input comes back with created=false. */
  trigger: userProcedure
    .input(
      z.object({
        target: z.object({ type: z.enum(TARGET_TYPES), id: z.string().min(1).max(64) }),
        jobTypes: z
          .array(jobTypeSchema)
          .min(1)
          .max(JOB_TYPES.length)
          .refine((a) => new Set(a).size === a.length, "job types must be distinct"),
        /** Checked per type by the job's parameter schema (INVALID_PARAMS, 400). */
        params: z.strictObject(Object.fromEntries(TYPES_WITH_PARAMS.map((t) => [t, paramsInput]))).optional(),
      }),
    )
    .output(
      z.object({ items: z.array(z.object({ jobType: jobTypeSchema, job: learnerJobSchema, created: z.boolean() })) }),
    )
    .mutation(({ ctx, input }) =>
      triggerAnalyses({
        userId: ctx.user.id,
        actor: { type: ctx.user.role === "admin" ? "admin" : "learner", id: ctx.user.id },
        target: input.target,
        jobTypes: input.jobTypes,
        params: input.params,
        requestLocale: ctx.locale,
      }),
    ),
});
