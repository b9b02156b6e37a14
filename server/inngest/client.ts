import { Inngest } from "inngest";
import { setting } from "../config";

/**
 * The one Inngest client. Dev mode (no signing key, talks to a local dev server) is an explicit
 * opt-in with INNGEST_DEV=1; otherwise INNGEST_SIGNING_KEY is required to serve functions and
 * every call to /api/inngest must be signed.
 */
export const inngest = new Inngest({
  id: "ai-job-runtime",
  isDev: setting("INNGEST_DEV") === "1",
});

/** Whether an Inngest server is configured: dev server opted in, or Cloud/self-hosted keys. */
export function inngestConfigured() {
  return setting("INNGEST_DEV") === "1" || !!(setting("INNGEST_SIGNING_KEY") && setting("INNGEST_EVENT_KEY"));
}
