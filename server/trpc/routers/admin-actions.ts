import { z } from "zod";
import { BULK_ACTIONS, bulkScopeSchema } from "../../admin/filter-schema";
import { getBulkRun, listBulkRuns, previewBulk } from "../../admin/bulk";
import { launchBulkRun, pauseBulkRun, stepBulkRun, stopBulkRun } from "../../admin/bulk-runner";
import { setJobPriority } from "../../admin/priority";
import { adminProcedure, router } from "../init";
import { isoDate, jobIdInput } from "../schemas";

const bulkInput = { action: z.enum(BULK_ACTIONS), scope: bulkScopeSchema };
const runIdInput = z.object({ id: z.string().min(1).max(64) });

const bulkRunSchema = z.object({
  id: z.string(),
  actorId: z.string(),
  action: z.enum(BULK_ACTIONS),
  scope: z.unknown(),
  status: z.enum(["running", "done", "cancelled"]),
  total: z.number().int(),
  processed: z.number().int(),
  affected: z.number().int(),
  errors: z.number().int(),
  cancelRequested: z.boolean(),
  paused: z.boolean(),
  message: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  finishedAt: isoDate.nullable(),
});

/** Console actions beyond single re-run/cancel (admin.jobs): priority and bulk, all audited. */
export const adminActionsRouter = router({
  setPriority: adminProcedure
    .input(jobIdInput.extend({ priority: z.number().int().min(-1000).max(1000) }))
    .output(z.object({ id: z.string(), priority: z.number().int(), previous: z.number().int() }))
    .mutation(({ ctx, input }) => setJobPriority(input.jobId, input.priority, ctx.user.id)),

  /** What a bulk action would do now, counted exactly: shown in the confirmation dialog. */
  bulkPreview: adminProcedure
    .input(z.object(bulkInput))
    .output(
      z.object({
        action: z.enum(BULK_ACTIONS),
        matched: z.number().int(),
        byStatus: z.array(z.object({ status: z.string(), n: z.number().int() })),
        count: z.number().int(),
        sampleIds: z.array(z.string()),
      }),
    )
    .query(({ input }) => previewBulk(input.action, input.scope)),

  /**
   * Starts the action in the background, only if the scope still holds `expectedCount` jobs
   * (else 409 SCOPE_CHANGED, nothing done). Answers the run at once; its progress is bulkStatus.
   */
  bulkRun: adminProcedure
    .input(
      z.object({
        ...bulkInput,
        expectedCount: z.number().int().min(1).max(100_000_000),
        /** Start held: nothing runs until bulkPause {paused: false} or bulkStep. */
        paused: z.boolean().optional(),
      }),
    )
    .output(bulkRunSchema)
    .mutation(({ ctx, input }) =>
      launchBulkRun(input.action, input.scope, input.expectedCount, ctx.user.id, { paused: input.paused }),
    ),

  bulkStatus: adminProcedure
    .input(runIdInput)
    .output(bulkRunSchema)
    .query(({ input }) => getBulkRun(input.id)),

  bulkRuns: adminProcedure
    .input(z.object({ limit: z.number().int().min(1).max(100).default(10) }))
    .output(z.object({ items: z.array(bulkRunSchema) }))
    .query(async ({ input }) => ({ items: await listBulkRuns(input.limit) })),

  /**
   * Holds a running bulk action at its next batch boundary (the answer is the exact state it
   * stopped at) or lets it go on; audited (jobs.bulk_pause / jobs.bulk_resume).
   */
  bulkPause: adminProcedure
    .input(runIdInput.extend({ paused: z.boolean() }))
    .output(bulkRunSchema)
    .mutation(({ ctx, input }) => pauseBulkRun(input.id, input.paused, ctx.user.id)),

  /** Runs one batch of a paused bulk action and answers the run as it left it; audited (jobs.bulk_step). */
  bulkStep: adminProcedure
    .input(runIdInput)
    .output(bulkRunSchema)
    .mutation(({ ctx, input }) => stepBulkRun(input.id, ctx.user.id)),

  /** Stops a running bulk action after the batch in hand; the audit row records how many it changed. */
  bulkCancel: adminProcedure
    .input(runIdInput)
    .output(bulkRunSchema)
    .mutation(({ input }) => stopBulkRun(input.id)),
});
