import { z } from "zod";
import { deleteCredential, getCredential, setCredential } from "../../credentials";
import { userProcedure, router } from "../init";
import { apiKeyModeSchema, maskedCredentialSchema } from "../schemas";

/** Printable characters, no spaces: a pasted key with a stray newline or space is refused, not stored. */
const apiKeyInput = z
  .string()
  .regex(/^[\x21-\x7E]{16,256}$/, "a DeepSeek API key is 16 to 256 printable characters without spaces");

/** The learner's own DeepSeek key: write-only; reads show the last four characters. */
export const credentialsRouter = router({
  get: userProcedure
    .input(z.void())
    .output(maskedCredentialSchema.nullable())
    .query(({ ctx }) => getCredential(ctx.user.id)),

  /** Sets or replaces the key. */
  set: userProcedure
    .input(z.object({ apiKey: apiKeyInput }))
    .output(maskedCredentialSchema)
    .mutation(({ ctx, input }) => setCredential(ctx.user.id, input.apiKey)),

  delete: userProcedure
    .input(z.void())
    .output(z.object({ deleted: z.boolean(), apiKeyMode: apiKeyModeSchema }))
    .mutation(({ ctx }) => deleteCredential(ctx.user.id)),
});
