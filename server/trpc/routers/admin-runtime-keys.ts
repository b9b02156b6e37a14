import { z } from "zod";
import { createRuntimeKey, listRuntimeKeys, revokeRuntimeKey } from "../../runtime-keys";
import { adminProcedure, router } from "../init";
import { isoDate } from "../schemas";

const keySummary = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
});

/** Runtime API keys: the key itself is in the create answer only; the server keeps its hash. Audited in the domain. */
export const adminRuntimeKeysRouter = router({
  create: adminProcedure
    .input(z.object({ name: z.string().trim().min(1).max(100) }))
    .output(z.object({ id: z.string(), name: z.string(), prefix: z.string(), createdAt: isoDate, key: z.string() }))
    .mutation(({ ctx, input }) => createRuntimeKey(input.name, ctx.user.id)),

  list: adminProcedure
    .input(z.void())
    .output(z.object({ items: z.array(keySummary) }))
    .query(async () => ({ items: await listRuntimeKeys() })),

  /** Takes effect on the key's next request: every Runtime request reads the key row. */
  revoke: adminProcedure
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(z.object({ id: z.string(), revoked: z.literal(true) }))
    .mutation(({ ctx, input }) => revokeRuntimeKey(input.id, ctx.user.id)),
});
