import { z } from "zod";
import { QUOTA_METRICS, PERIODS } from "../../jobs/quota";
import { getLearnerQuotas, setQuotaLimit } from "../../admin/quotas";
import { adminProcedure, router } from "../init";
import { quotaUsageSchema } from "../schemas";

const learnerSchema = z.object({ id: z.string(), email: z.string(), name: z.string() });

/** One learner's job quotas: their use this hour and day, and an audited override of a limit. */
export const adminQuotasRouter = router({
  get: adminProcedure
    .input(z.object({ user: z.string().trim().min(1).max(200) }))
    .output(z.object({ user: learnerSchema, items: z.array(quotaUsageSchema) }))
    .query(({ input }) => getLearnerQuotas(input.user)),

  setLimit: adminProcedure
    .input(
      z.object({
        userId: z.string().min(1).max(64),
        metric: z.enum(QUOTA_METRICS as [string, ...string[]]),
        period: z.enum(PERIODS),
        /** null goes back to the configured default. */
        allowed: z.number().int().min(0).max(2_000_000_000).nullable(),
      }),
    )
    .output(
      z.object({
        userId: z.string(),
        metric: z.string(),
        period: z.enum(PERIODS),
        allowed: z.number().int().nullable(),
        previous: z.number().int().nullable(),
      }),
    )
    .mutation(({ ctx, input }) => setQuotaLimit({ ...input, actorId: ctx.user.id })),
});
