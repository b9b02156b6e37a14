import { z } from "zod";
import { setUserLocale } from "../../account/locale";
import { changePassword } from "../../account/password";
import { eraseLearnerConfirmed } from "../../learners/erase";
import { LOCALES } from "../../i18n/locales";
import { digestSettings, setDigest } from "../../notifications/digest";
import { router, sessionProcedure, userProcedure } from "../init";

const digestSchema = z.object({
  optIn: z.boolean(),
  hour: z.number().int(),
  sendHour: z.number().int(),
  timeZone: z.string().nullable(),
  mailConfigured: z.boolean(),
  quietStart: z.number().int(),
  quietEnd: z.number().int(),
});

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

  /** The daily review digest by email: opted in or not, the local hour, whether this server can send mail. */
  digest: userProcedure
    .input(z.void())
    .output(digestSchema)
    .query(({ ctx }) => digestSettings(ctx.user.id)),
  setDigest: userProcedure
    .input(
      z.object({
        optIn: z.boolean(),
        hour: z.number().int().min(0).max(23),
        timeZone: z
          .string()
          .max(64)
          .regex(/^[A-Za-z0-9_+\-/]+$/)
          .optional(),
      }),
    )
    .output(digestSchema)
    .mutation(({ ctx, input }) => setDigest(ctx.user.id, input)),

  /** "Delete my account": erasure of everything (server/learners/erase.ts), confirmed by typing the email. */
  erase: userProcedure
    .input(z.object({ confirmEmail: z.string().max(320) }))
    .output(erasureSchema)
    .mutation(({ ctx, input }) =>
      eraseLearnerConfirmed(ctx.user.id, input.confirmEmail, { type: "learner", id: ctx.user.id }),
    ),
});
