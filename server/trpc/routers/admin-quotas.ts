import { z } from "zod";
import { getDb } from "../../db";
import { AppError } from "../../errors";
import { getJobQuotaUsage, QUOTA_METRICS, PERIODS } from "../../jobs/quota";
import { setQuotaLimit } from "../../admin/quotas";
import { adminProcedure, router } from "../init";
import { quotaUsageSchema } from "../schemas";

const learnerSchema = z.object({ id: z.string(), email: z.string(), name: z.string() });

/** One learner's job quotas: their use this hour and day, and an audited override of a limit. */
export const adminQuotasRouter = router({
  get: adminProcedure
    .input(z.object({ user: z.string().trim().min(1).max(200) }))
    .output(z.object({ user: learnerSchema, items: z.array(quotaUsageSchema) }))
    .query(async ({ input }) => {
      const who = input.user.includes("@") ? { email: input.user.toLowerCase() } : { id: input.user };
      const user = await getDb().user.findFirst({ where: who, select: { id: true, email: true, name: true } });
      if (!user) throw new AppError("NOT_FOUND", "no user with this id or email");
      return { user, items: await getJobQuotaUsage(user.id) };
    }),

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
    .output(z.object({ userId: z.string(), metric: z.string(), period: z.enum(PERIODS), allowed: z.number().int().nullable(), previous: z.number().int().nullable() }))
    .mutation(({ ctx, input }) => setQuotaLimit({ ...input, actorId: ctx.user.id })),
});
