import { z } from "zod";
import { listDeliveries } from "../../notifications/deliveries";
import { webhookConfig } from "../../notifications/webhook";
import { adminProcedure, router } from "../init";
import { isoDate } from "../schemas";

const status = z.enum(["pending", "delivered", "failed"]);
const delivery = z.object({
  id: z.string(),
  jobId: z.string(),
  status,
  attempts: z.number().int(),
  nextAttemptAt: isoDate,
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: isoDate,
  deliveredAt: isoDate.nullable(),
});

/** The zero-setup webhook delivery log (one row per finished job: attempts, last answer, outcome). */
export const adminWebhooksRouter = router({
  list: adminProcedure
    .input(
      z.object({
        status: status.optional(),
        jobId: z.string().max(64).optional(),
        limit: z.number().int().min(1).max(200).default(50),
      }),
    )
    // `configured`: whether this instance has a webhook target (JOB_WEBHOOK_URL + SECRET) at all.
    .output(z.object({ items: z.array(delivery), total: z.number().int(), configured: z.boolean() }))
    .query(async ({ input }) => ({ ...(await listDeliveries(input)), configured: webhookConfig() !== null })),
});
