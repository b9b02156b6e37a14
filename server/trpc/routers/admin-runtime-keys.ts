import { z } from "zod";
import { createRuntimeKey, listRuntimeKeys, revokeRuntimeKey, setRuntimeKeyScope } from "../../runtime-keys";
import { JOB_TYPES } from "../../jobs/constants";
import { adminProcedure, router } from "../init";
import { isoDate } from "../schemas";

/** A key's scopes (docs/contract.md#consent-credentials-and-cancellation): job types it may run (empty: all) and whether it may receive learners' own keys. */
const scopeFields = {
  jobTypes: z.array(z.enum(JOB_TYPES)).max(JOB_TYPES.length),
  mayReceiveLearnerKeys: z.boolean(),
};

const keySummary = z.object({
  ...scopeFields,
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
    .input(
      z.object({
        name: z.string().trim().min(1).max(100),
        jobTypes: scopeFields.jobTypes.optional(),
        mayReceiveLearnerKeys: scopeFields.mayReceiveLearnerKeys.optional(),
      }),
    )
    .output(
      z.object({
        id: z.string(),
        name: z.string(),
        prefix: z.string(),
        createdAt: isoDate,
        key: z.string(),
        ...scopeFields,
      }),
    )
    .mutation(({ ctx, input }) => createRuntimeKey(input.name, ctx.user.id, input)),

  /** Changes a key's scopes, audited; its next request runs under them. */
  setScope: adminProcedure
    .input(
      z.object({
        id: z.string().min(1).max(64),
        jobTypes: scopeFields.jobTypes.optional(),
        mayReceiveLearnerKeys: scopeFields.mayReceiveLearnerKeys.optional(),
      }),
    )
    .output(z.object({ id: z.string(), ...scopeFields }))
    .mutation(({ ctx, input }) => setRuntimeKeyScope(input.id, input, ctx.user.id)),

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
