import { z } from "zod";
import { createInvitation, resendInvitation, revokeInvitation } from "../../account/invitations";
import { listLearners } from "../../account/learners";
import { LEARNER_SORTS } from "../../account/learner-sorts";
import { LOCALES } from "../../i18n/locales";
import { adminProcedure, router } from "../init";
import { isoDate } from "../schemas";

const invitationId = z.string().min(1).max(64);
const pointMastery = z.object({
  knowledgePointId: z.string(),
  title: z.string(),
  mastery: z.number(),
  evidence: z.number().int(),
});
const sent = z.object({ invitationId: z.string(), email: z.string(), expiresAt: isoDate, link: z.string() });

/**
 * The console's Learners page. The invitation link is in the invite/resend answer only (the
 * admin hands it on; the server keeps its hash). Audited in the domain.
 */
export const adminLearnersRouter = router({
  list: adminProcedure
    .input(
      z.object({
        search: z.string().max(200).optional(),
        page: z.number().int().min(1).max(100_000).default(1),
        pageSize: z.number().int().min(1).max(100).default(25),
        sort: z.enum(LEARNER_SORTS).default("newest"),
        dir: z.enum(["asc", "desc"]).default("desc"),
        language: z.enum(LOCALES).optional(),
        overdue: z.boolean().optional(),
        forgotten: z.boolean().optional(),
      }),
    )
    .output(
      z.object({
        items: z.array(
          z.object({
            userId: z.string().nullable(),
            email: z.string(),
            name: z.string().nullable(),
            createdAt: isoDate,
            invitationId: z.string().nullable(),
            invitation: z.enum(["pending", "accepted", "expired", "revoked", "none"]),
            invitationExpiresAt: isoDate.nullable(),
            signIn: z.array(z.enum(["password", "sso"])),
            stats: z
              .object({
                locale: z.string().nullable(),
                lastActiveAt: isoDate.nullable(),
                dueCards: z.number().int(),
                overdueCards: z.number().int(),
                forgottenPoints: z.number().int(),
                jobsThisMonth: z.number().int(),
                costThisMonth: z.number(),
              })
              .nullable(),
            mastery: z
              .object({
                mean: z.number().nullable(),
                weakest: pointMastery.nullable(),
                points: z.array(pointMastery),
                pointCount: z.number().int(),
              })
              .nullable(),
          }),
        ),
        total: z.number(),
        page: z.number(),
        pageSize: z.number(),
      }),
    )
    .query(({ input }) => listLearners(input)),

  invite: adminProcedure
    .input(z.object({ email: z.string().max(254) }))
    .output(sent)
    .mutation(({ ctx, input }) => createInvitation(input.email, ctx.user.id)),

  /** A new link; the old one stops working. */
  resend: adminProcedure
    .input(z.object({ invitationId }))
    .output(sent)
    .mutation(({ ctx, input }) => resendInvitation(input.invitationId, ctx.user.id)),

  revoke: adminProcedure
    .input(z.object({ invitationId }))
    .output(z.object({ revoked: z.literal(true) }))
    .mutation(({ ctx, input }) => revokeInvitation(input.invitationId, ctx.user.id)),
});
