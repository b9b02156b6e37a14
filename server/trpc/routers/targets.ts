import { z } from "zod";
import { listTargets } from "../../learning/targets";
import { userProcedure, router } from "../init";

const named = z.object({ id: z.string(), title: z.string() });

/** What the signed-in learner can analyse: themself, their materials, their knowledge points. */
export const targetsRouter = router({
  list: userProcedure
    .input(z.void())
    .output(
      z.object({
        learner: z.object({ id: z.string(), name: z.string() }),
        materials: z.array(named.extend({ knowledgePoints: z.array(named) })),
        looseKnowledgePoints: z.array(named),
      }),
    )
    .query(({ ctx }) => listTargets(ctx.user.id)),
});
