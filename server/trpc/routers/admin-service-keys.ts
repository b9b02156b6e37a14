import { z } from "zod";
import { createServiceKey, listServiceKeys, revokeServiceKey, SCOPES } from "../../platform/service-keys";
import { adminProcedure, router } from "../init";
import { isoDate } from "../schemas";

const scope = z.enum(SCOPES);
const keySummary = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
});

/** Service keys of the platform API: the key itself is in the create answer only; the server keeps its hash. Audited in the domain. */
export const adminServiceKeysRouter = router({
  create: adminProcedure
    .input(
      z.object({
        name: z.string().trim().min(1).max(100),
        scopes: z.array(scope).min(1).max(SCOPES.length),
      }),
    )
    .output(
      z.object({
        id: z.string(),
        name: z.string(),
        prefix: z.string(),
        scopes: z.array(z.string()),
        createdAt: isoDate,
        key: z.string(),
      }),
    )
    .mutation(({ ctx, input }) => createServiceKey(input.name, input.scopes, ctx.user.id)),

  list: adminProcedure
    .input(z.void())
    .output(z.object({ items: z.array(keySummary) }))
    .query(async () => ({ items: await listServiceKeys() })),

  /** Takes effect on the key's next call: every platform API call reads the key row. */
  revoke: adminProcedure
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(z.object({ id: z.string(), revoked: z.literal(true) }))
    .mutation(({ ctx, input }) => revokeServiceKey(input.id, ctx.user.id)),
});
