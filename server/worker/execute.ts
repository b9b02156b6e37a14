import { AppError, isAppError } from "../errors";
import { heartbeat, lockJob } from "../jobs/lease";
import { failJob, submitResult } from "../jobs/results";
import { isJobFailure, JobFailure } from "../pipeline/errors";
import { pipelineInput, runPipeline, type StageRunner } from "../pipeline/run-pipeline";
import { selectProvider } from "../providers/select";
import type { Provider } from "../providers/types";
import { workerInstanceId, workerProviderSettings } from "./config";

/** A durable step: Inngest's step.run in the function, a plain call in tests of the domain. */
export type Step = <T>(id: string, fn: () => Promise<T>) => Promise<T>;
/** Waits until the job may run again (Inngest: step.sleepUntil). */
export type SleepUntil = (id: string, until: Date) => Promise<void>;

export type Outcome =
  | { outcome: "succeeded"; resultId: string; attempts: number }
  | { outcome: "failed" | "cancelled"; errorCode: string | null; attempts: number }
  | { outcome: "skipped"; reason: string; attempts: number };

class Stopped extends Error {
  constructor(readonly reason: "cancel" | "lost") {
    super(`stopped: ${reason}`);
  }
}

/**
 * The in-app worker's run of one job, through the same lease services as an external Runtime:
 * lock (as its own Runtime instance), the pipeline's stages as steps with a heartbeat at each,
 * then the result or the classified failure. A retryable failure sleeps until the job's runAfter
 * and takes it again; a lease lost to a slow step is taken again if the job is free. Classified
 * failures come back from a stage as a step *result*, so Inngest does not retry them on its own
 * (the job engine's retry accounting decides); anything else is a bug and Inngest retries the step.
 */
export async function executeJob(jobId: string, step: Step, sleepUntil: SleepUntil, provider?: Provider): Promise<Outcome> {
  const runtimeInstanceId = workerInstanceId();
  for (let attempts = 1; attempts <= 20; attempts++) {
    const lease = await step("lock-job", async () => {
      try {
        const l = await lockJob(jobId, runtimeInstanceId);
        return { ok: true as const, job: JSON.parse(JSON.stringify(l.job)) as typeof l.job };
      } catch (e) {
        if (isAppError(e) && e.code !== "JOB_NOT_FOUND") return { ok: false as const, reason: `${e.code}: ${e.message}` };
        throw e;
      }
    });
    if (!lease.ok) return { outcome: "skipped", reason: lease.reason, attempts };
    const job = lease.job;
    const attemptNo = job.attemptNo;
    try {
      const result = await runPipeline(pipelineInput(job), {
        provider: provider ?? selectProvider(job.model, workerProviderSettings()),
        runStage: classifiedStage(step),
        onProgress: async (r) => {
          try {
            const hb = await heartbeat(jobId, { runtimeInstanceId, attemptNo, stage: r.stage, progress: r.progress, message: r.message });
            if (hb.cancelRequested) throw new Stopped("cancel");
          } catch (e) {
            if (isAppError(e) && e.code === "LOCK_LOST") throw new Stopped("lost");
            throw e;
          }
        },
      });
      const stored = await step("submit-result", async () => {
        try {
          const r = await submitResult(jobId, {
            runtimeInstanceId, attemptNo, output: result.output, outputSchemaVersion: result.outputSchemaVersion,
            promptVersion: result.promptVersion, modelProvider: result.provider, modelName: result.model,
            usage: result.usage, latencyMs: result.latencyMs, degraded: result.degraded,
          });
          return { ok: true as const, resultId: r.resultId };
        } catch (e) {
          if (isAppError(e)) return { ok: false as const, code: e.code };
          throw e;
        }
      });
      if (stored.ok) return { outcome: "succeeded", resultId: stored.resultId, attempts };
      if (stored.code === "LOCK_LOST") continue;
      return { outcome: stored.code === "JOB_CANCELLED" ? "cancelled" : "failed", errorCode: stored.code, attempts };
    } catch (e) {
      if (e instanceof Stopped && e.reason === "lost") continue; // the sweep ended our attempt: take the job again if it is free
      const failure = e instanceof Stopped ? new JobFailure("CANCELLED", "stopped on the learner's cancel request") : e;
      if (!isJobFailure(failure)) throw failure;
      const reported = await step("report-failure", async () => {
        try {
          const r = await failJob(jobId, { runtimeInstanceId, attemptNo, errorCode: failure.code, errorMessage: failure.message });
          return { status: r.status as string, runAfter: r.runAfter ? new Date(r.runAfter).toISOString() : null };
        } catch (err) {
          if (isAppError(err)) return { status: err.code === "JOB_CANCELLED" ? "cancelled" : "lost", runAfter: null };
          throw err;
        }
      });
      if (reported.status === "pending" && reported.runAfter) {
        await sleepUntil("wait-for-retry", new Date(reported.runAfter));
        continue;
      }
      if (reported.status === "lost") continue;
      return { outcome: reported.status === "cancelled" ? "cancelled" : "failed", errorCode: failure.code, attempts };
    }
  }
  throw new AppError("INTERNAL", `job ${jobId}: the worker gave up after 20 rounds`);
}

/** Stage steps return classified failures as data, so Inngest memoises them instead of retrying. */
function classifiedStage(step: Step): StageRunner {
  return async (id, fn) => {
    const out = await step(id, async () => {
      try {
        return { value: await fn() };
      } catch (e) {
        if (isJobFailure(e)) return { failure: { code: e.code, message: e.message } };
        if (e instanceof Stopped) return { stopped: e.reason };
        throw e;
      }
    });
    if ("failure" in out && out.failure) throw new JobFailure(out.failure.code, out.failure.message);
    if ("stopped" in out && out.stopped) throw new Stopped(out.stopped);
    return (out as { value: never }).value;
  };
}
