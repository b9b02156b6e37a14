import { z } from "zod";
import { setUserLocale } from "../../account/locale";
import { changePassword } from "../../account/password";
import { eraseLearnerConfirmed } from "../../learners/erase";
import { LOCALES } from "../../i18n/locales";
import { router, sessionProcedure, userProcedure } from "../init";

export const erasureSchema = z.object({ erasureId: z.string(), counts: z.record(z.string(), z.number().int()) });

/** The signed-in user's own account. Their data's download is GET /api/account/export. */
export const accountRouter = router({
  /** Allowed while a one-time password is still to be replaced (it is how it gets replaced). */
  changePassword: sessionProcedure
    .input(z.object({ currentPassword: z.string().min(1).max(128), newPassword: z.string().min(1).max(128) }))
    .output(z.object({ changed: z.literal(true) }))
    .mutation(({ ctx, input }) =>
      changePassword(ctx.user.id, ctx.session.id, input.currentPassword, input.newPassword),
    ),
  /** The learner's language for every learner page (the switcher on the learner and password pages). */
  setLocale: sessionProcedure
    .input(z.object({ locale: z.enum(LOCALES) }))
    .output(z.object({ locale: z.enum(LOCALES) }))
    .mutation(({ ctx, input }) => setUserLocale(ctx.user.id, input.locale)),

  /** "Delete my account": erasure of everything (server/learners/erase.ts), confirmed by typing the email. */
  erase: userProcedure
    .input(z.object({ confirmEmail: z.string().max(320) }))
    .output(erasureSchema)
    .mutation(({ ctx, input }) =>
      eraseLearnerConfirmed(ctx.user.id, input.confirmEmail, { type: "learner", id: ctx.user.id }),
    ),
});
