import { z } from "zod";
import { eraseLearnerConfirmed } from "../../learners/erase";
import { adminProcedure, router } from "../init";
import { erasureSchema } from "./account";

/**
 * An admin's side of a learner's data rights: erasure here (confirmed by typing the learner's
 * email); the export is GET /api/admin/learners/{userId}/export. Both audited.
 */
export const adminLearnerDataRouter = router({
  erase: adminProcedure
    .input(z.object({ userId: z.string().min(1).max(64), confirmEmail: z.string().max(320) }))
    .output(erasureSchema)
    .mutation(({ ctx, input }) =>
      eraseLearnerConfirmed(input.userId, input.confirmEmail, { type: "admin", id: ctx.user.id }),
    ),
});
