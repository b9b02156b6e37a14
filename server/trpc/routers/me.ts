import { z } from "zod";
import { publicProcedure, router } from "../init";
import { userSchema } from "../schemas";

export const meRouter = router({
  /** Who is signed in; null for anonymous callers (the pages decide where to send them). */
  get: publicProcedure
    .input(z.void())
    .output(z.object({ user: userSchema }).nullable())
    .query(({ ctx }) => (ctx.session ? { user: ctx.session.user } : null)),
});
