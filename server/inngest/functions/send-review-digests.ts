import { cron } from "inngest";
import { inngest } from "../client";
import { sendDueDigests } from "../../notifications/digest";

/**
 * Every five minutes: the daily review digests whose learner's local hour has come, and retries
 * of those the SMTP server refused. Each learner's digest is taken once a day (DigestSend), so
 * this and the in-process scheduler never send one twice.
 */
export const sendReviewDigestsFn = inngest.createFunction(
  { id: "send-review-digests", triggers: [cron("*/5 * * * *")], concurrency: { limit: 1 } },
  async ({ step }) => step.run("send-due-digests", () => sendDueDigests()),
);
