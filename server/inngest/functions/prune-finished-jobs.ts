import { cron } from "inngest";
import { inngest } from "../client";
import { pruneFinishedJobs } from "../../jobs/retention";

/**
 * Daily at 03:17: time partitions are made ahead; finished jobs past JOB_RETENTION_DAYS (default 90) go with their
 * events and results, by whole spans dropped (three partitions); jobs no span holds by rows, in batches.
 */
export const pruneFinishedJobsFn = inngest.createFunction(
  { id: "prune-finished-jobs", triggers: [cron("17 3 * * *")], concurrency: { limit: 1 } },
  async ({ step }) => {
    const out = await step.run("delete-expired-jobs", async () => {
      const r = await pruneFinishedJobs();
      return {
        deleted: r.deleted,
        batches: r.batches,
        cutoff: r.cutoff.toISOString(),
        droppedPartitions: r.droppedPartitions,
        madePartitions: r.madePartitions,
      };
    });
    return out;
  },
);
