import { z } from "zod";
import { getJobQuotaUsage } from "../../jobs/quota";
import { userProcedure, router } from "../init";
import { quotaUsageSchema } from "../schemas";

/** The signed-in learner's own job limits and how much of each window is used. */
export const quotaRouter = router({
  get: userProcedure
    .input(z.void())
    .output(z.object({ items: z.array(quotaUsageSchema) }))
    .query(async ({ ctx }) => ({ items: await getJobQuotaUsage(ctx.user.id) })),
});
