import { z } from "zod";
import { recordAudit } from "../../admin/audit";
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

/** Runtime API keys: the key itself is in the create answer only; the server keeps its hash. */
export const adminRuntimeKeysRouter = router({
  create: adminProcedure
    .input(z.object({ name: z.string().trim().min(1).max(100) }))
    .output(z.object({ id: z.string(), name: z.string(), prefix: z.string(), createdAt: isoDate, key: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const created = await createRuntimeKey(input.name);
      await recordAudit({ actorId: ctx.user.id, action: "runtime_key.create", scope: { keyId: created.id, name: created.name, prefix: created.prefix }, count: 1 });
      return created;
    }),

  list: adminProcedure
    .input(z.void())
    .output(z.object({ items: z.array(keySummary) }))
    .query(async () => ({ items: await listRuntimeKeys() })),

  /** Takes effect on the key's next request: every Runtime request reads the key row. */
  revoke: adminProcedure
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(z.object({ id: z.string(), revoked: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await revokeRuntimeKey(input.id);
      await recordAudit({ actorId: ctx.user.id, action: "runtime_key.revoke", scope: { keyId: input.id }, count: 1 });
      return { id: input.id, revoked: true as const };
    }),
});
