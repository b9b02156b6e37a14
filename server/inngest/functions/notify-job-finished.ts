import { NonRetriableError } from "inngest";
import { inngest } from "../client";
import { jobFinished } from "../events";
import { deliverWebhook, jobFinishedPayload, webhookConfig, WebhookError } from "../../notifications/webhook";

/**
 * When a job finishes and JOB_WEBHOOK_URL/JOB_WEBHOOK_SECRET are set, POST the signed
 * notification to the learning platform; Inngest retries failed deliveries with backoff.
 */
export const notifyJobFinished = inngest.createFunction(
  { id: "notify-job-finished", triggers: [jobFinished], retries: 8 },
  async ({ event, step }) => {
    const target = webhookConfig();
    if (!target) return { skipped: "no webhook configured" };
    const payload = await step.run("load-job", () => jobFinishedPayload(event.data.jobId));
    if (!payload) throw new NonRetriableError(`job ${event.data.jobId} no longer exists`);
    return step.run("deliver-webhook", async () => {
      try {
        return await deliverWebhook(target, `${event.data.jobId}:${event.data.status}`, payload);
      } catch (e) {
        if (e instanceof WebhookError && !e.retryable) throw new NonRetriableError(e.message);
        throw e;
      }
    });
  },
);
