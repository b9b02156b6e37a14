import { cron } from "inngest";
import { inngest } from "../client";
import { sweepExpiredLeases } from "../../jobs/sweep";

/**
 * Every minute: passed leases and execution timeouts → expired → pending or failed. Lock,
 * heartbeat and result already treat a passed lease as lost, so this only has to bring such
 * jobs back within a minute; it works in batches and overlapping runs skip each other's rows.
 */
export const sweepLeases = inngest.createFunction(
  { id: "sweep-leases", triggers: [cron("* * * * *")], concurrency: { limit: 1 } },
  async ({ step }) => step.run("sweep-expired-leases", () => sweepExpiredLeases()),
);
