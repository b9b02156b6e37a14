import { NonRetriableError } from "inngest";
import { inngest } from "../client";
import { jobCreated } from "../events";
import { getDb } from "../../db";
import { executeJob, type Step } from "../../worker/execute";
import { workerTakes } from "../../worker/config";
import { setting } from "../../config";

/**
 * The in-app worker: for jobs routed to it (INNGEST_WORKER_JOB_TYPES), takes the job through the
 * lease protocol as its own Runtime instance and runs the pipeline's stages as durable steps.
 */
export const executeJobFn = inngest.createFunction(
  {
    id: "execute-job",
    triggers: [jobCreated],
    retries: 3,
    concurrency: { limit: setting("INNGEST_WORKER_CONCURRENCY") },
  },
  async ({ event, step }) => {
    if (!workerTakes(event.data.jobType))
      return { outcome: "skipped", reason: "job type not routed to the Inngest worker" };
    const exists = await step.run(
      "find-job",
      async () => (await getDb().aiRuntimeJob.count({ where: { id: event.data.jobId } })) > 0,
    );
    if (!exists) throw new NonRetriableError(`job ${event.data.jobId} does not exist`);
    const run: Step = (id, fn) => step.run(id, fn) as never;
    return executeJob(event.data.jobId, run, (id, until) => step.sleepUntil(id, until));
  },
);
