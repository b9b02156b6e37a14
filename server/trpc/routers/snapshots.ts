import { z } from "zod";
import { getOwnSnapshot } from "../../jobs/queries";
import { userProcedure, router } from "../init";
import { snapshotSchema } from "../schemas";

export const snapshotsRouter = router({
  /** The learner's own snapshot (what a job analysed). */
  get: userProcedure
    .input(z.object({ snapshotId: z.string().min(1).max(64) }))
    .output(snapshotSchema)
    .query(({ ctx, input }) => getOwnSnapshot(input.snapshotId, ctx.user.id)),
});
