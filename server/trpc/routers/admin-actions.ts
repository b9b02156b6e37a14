import { z } from "zod";
import { BULK_ACTIONS, bulkScopeSchema } from "../../admin/filter-schema";
import { previewBulk, runBulk } from "../../admin/bulk";
import { setJobPriority } from "../../admin/priority";
import { adminProcedure, router } from "../init";
import { jobIdInput } from "../schemas";

const bulkInput = { action: z.enum(BULK_ACTIONS), scope: bulkScopeSchema };

/** Console actions beyond single re-run/cancel (admin.jobs): priority and bulk, all audited. */
export const adminActionsRouter = router({
  setPriority: adminProcedure
    .input(jobIdInput.extend({ priority: z.number().int().min(-1000).max(1000) }))
    .output(z.object({ id: z.string(), priority: z.number().int(), previous: z.number().int() }))
    .mutation(({ ctx, input }) => setJobPriority(input.jobId, input.priority, ctx.user.id)),

  /** What a bulk action would do now: shown in the confirmation dialog. */
  bulkPreview: adminProcedure
    .input(z.object(bulkInput))
    .output(z.object({
      action: z.enum(BULK_ACTIONS), matched: z.number().int(), byStatus: z.array(z.object({ status: z.string(), n: z.number().int() })),
      count: z.number().int(), tooMany: z.boolean(), limit: z.number().int(), sampleIds: z.array(z.string()),
    }))
    .query(({ input }) => previewBulk(input.action, input.scope)),

  /** Runs only if the scope still holds `expectedCount` jobs (else 409 SCOPE_CHANGED, nothing done). */
  bulkRun: adminProcedure
    .input(z.object({ ...bulkInput, expectedCount: z.number().int().min(1).max(100_000) }))
    .output(z.object({
      action: z.enum(BULK_ACTIONS), requested: z.number().int(), done: z.number().int(), skipped: z.number().int(),
      createdJobIds: z.array(z.string()), errors: z.array(z.object({ id: z.string(), code: z.string() })),
    }))
    .mutation(({ ctx, input }) => runBulk(input.action, input.scope, input.expectedCount, { type: "admin", id: ctx.user.id })),
});
