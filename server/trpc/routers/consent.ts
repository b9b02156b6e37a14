import { z } from "zod";
import { chooseApiKeyMode } from "../../credentials";
import { getConsent, setConsent } from "../../jobs/consent";
import { userProcedure, router } from "../init";
import { apiKeyModeSchema } from "../schemas";

export const consentRouter = router({
  get: userProcedure
    .input(z.void())
    .output(z.object({ granted: z.boolean(), apiKeyMode: apiKeyModeSchema }))
    .query(({ ctx }) => getConsent(ctx.user.id)),

  /** Turning AI off cancels pending jobs and asks running ones to stop (docs/contract.md#consent-credentials-and-cancellation). */
  set: userProcedure
    .input(z.object({ granted: z.boolean() }))
    .output(z.object({ granted: z.boolean(), cancelled: z.number().int(), cancelRequested: z.number().int() }))
    .mutation(({ ctx, input }) => setConsent(ctx.user.id, input.granted, { type: "learner", id: ctx.user.id })),

  /** user_deepseek_key without a stored key is refused with CREDENTIAL_REQUIRED. */
  setApiKeyMode: userProcedure
    .input(z.object({ apiKeyMode: apiKeyModeSchema }))
    .output(z.object({ apiKeyMode: apiKeyModeSchema }))
    .mutation(({ ctx, input }) => chooseApiKeyMode(ctx.user.id, input.apiKeyMode)),
});
