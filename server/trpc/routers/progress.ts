import { z } from "zod";
import { listHistory } from "../../learning/history";
import { getMasteryHistory } from "../../learning/mastery-history";
import { getNextActionTicks, setNextActionTick } from "../../learning/next-action-ticks";
import { userProcedure, router } from "../init";
import { isoDate, jobIdInput, learnerJobSchema } from "../schemas";

/** `degraded`: the analysis was stored degraded; its figure is shown flagged, not as fact. */
const point = z.object({ at: isoDate, mastery: z.number(), jobId: z.string(), degraded: z.boolean() });
const ticksSchema = z.object({ jobId: z.string(), done: z.array(z.number().int()) });

/** The learner's side over time: full history, mastery per topic across analyses, ticked next steps. */
export const progressRouter = router({
  /** Every analysis, newest first, in keyset pages (`cursor` is the last row's `createdAt|id`). */
  history: userProcedure
    .input(z.object({ cursor: z.string().max(200).optional(), limit: z.number().int().min(1).max(100).default(20) }))
    .output(z.object({ items: z.array(learnerJobSchema), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => listHistory(ctx.user.id, input)),

  mastery: userProcedure
    .input(z.void())
    .output(
      z.object({
        analyses: z.number().int(),
        /** Analyses stored degraded (their points are flagged). */
        unverified: z.number().int(),
        overall: z.array(point),
        topics: z.array(z.object({ knowledgePointId: z.string(), title: z.string(), points: z.array(point) })),
      }),
    )
    .query(({ ctx }) => getMasteryHistory(ctx.user.id)),

  ticks: userProcedure
    .input(jobIdInput)
    .output(ticksSchema)
    .query(({ ctx, input }) => getNextActionTicks(ctx.user.id, input.jobId)),

  setTick: userProcedure
    .input(jobIdInput.extend({ actionIndex: z.number().int().min(0).max(49), done: z.boolean() }))
    .output(ticksSchema)
    .mutation(({ ctx, input }) => setNextActionTick(ctx.user.id, input.jobId, input.actionIndex, input.done)),
});
