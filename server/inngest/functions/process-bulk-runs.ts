import { cron } from "inngest";
import { inngest } from "../client";
import { processPendingBulkRuns } from "../../admin/bulk-runner";

/**
 * Every minute: resumes bulk runs that no runner is working (the app instance that started one
 * died or restarted). Runs start at once in the request's process; this only finishes orphans,
 * from the cursor their last committed batch left.
 */
export const processBulkRunsFn = inngest.createFunction(
  { id: "process-bulk-runs", triggers: [cron("* * * * *")], concurrency: { limit: 1 } },
  async ({ step }) => step.run("resume-bulk-runs", () => processPendingBulkRuns()),
);
