import { jobConfig } from "../config";
import { AppError, isAppError } from "../errors";
import { heartbeat, lockJob } from "../jobs/lease";
import { failJob, submitResult } from "../jobs/results";
import { isJobFailure, JobFailure, usageOf } from "../pipeline/errors";
import { pipelineInput, runPipeline, type StageRunner } from "../pipeline/run-pipeline";
import type { Provider } from "../providers/types";
import type { Usage } from "../runtime-api/contract";
import { workerInstanceId, workerProviderSettings } from "./config";
import { workerProvider } from "./job-key";
import { withParent } from "../observability/tracing";

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
 * lock (as its own Runtime instance), the pipeline's stages as steps with a heartbeat at each
 * and a heartbeat timer while a stage runs, then the result or the classified failure (with the
 * attempt's usage and the provider's Retry-After). A retryable failure sleeps until the job's
 * runAfter and takes it again; a lease lost to a slow step is taken again if the job is free.
 * Classified failures come back from a stage as a step *result*, so Inngest does not retry them
 * on its own (the job engine's retry accounting decides); anything else is a bug and Inngest
 * retries the step. No step's output contains a learner's key (see job-key.ts).
 */
export async function executeJob(
  jobId: string,
  step: Step,
  sleepUntil: SleepUntil,
  provider?: Provider,
): Promise<Outcome> {
  const runtimeInstanceId = workerInstanceId();
  for (let attempts = 1; attempts <= 20; attempts++) {
    const lease = await step("lock-job", async () => {
      try {
        const l = await lockJob(jobId, runtimeInstanceId);
        const { apiKey: _key, ...model } = l.job.model as typeof l.job.model & { apiKey?: string };
        return {
          ok: true as const,
          job: JSON.parse(JSON.stringify({ ...l.job, model })) as Omit<typeof l.job, "model"> & { model: typeof model },
        };
      } catch (e) {
        if (isAppError(e) && e.code !== "JOB_NOT_FOUND")
          return { ok: false as const, reason: `${e.code}: ${e.message}` };
        throw e;
      }
    });
    if (!lease.ok) return { outcome: "skipped", reason: lease.reason, attempts };
    const job = lease.job;
    const attemptNo = job.attemptNo;
    const stop = new AbortController();
    const beat = async (r: { stage?: string; progress?: number; message?: string } = {}) => {
      try {
        const hb = await heartbeat(jobId, { runtimeInstanceId, attemptNo, ...r });
        if (hb.cancelRequested) throw new Stopped("cancel");
      } catch (e) {
        const stopped = e instanceof Stopped ? e : isAppError(e) && e.code === "LOCK_LOST" ? new Stopped("lost") : null;
        if (!stopped) throw e;
        if (!stop.signal.aborted) stop.abort(stopped);
        throw stopped;
      }
    };
    try {
      // The stages' spans join the job's trace under this attempt's lock span.
      const result = await withParent(job.traceparent, () =>
        runPipeline(pipelineInput(job), {
          provider:
            provider ?? workerProvider(jobId, { runtimeInstanceId, attemptNo }, job.model, workerProviderSettings()),
          runStage: classifiedStage(step, beat),
          signal: stop.signal,
          onProgress: (r) => beat({ stage: r.stage, progress: r.progress, message: r.message }),
        }),
      );
      const stored = await step("submit-result", async () => {
        try {
          const r = await submitResult(jobId, {
            runtimeInstanceId,
            attemptNo,
            output: result.output,
            outputSchemaVersion: result.outputSchemaVersion,
            promptVersion: result.promptVersion,
            modelProvider: result.provider,
            modelName: result.model,
            usage: result.usage,
            latencyMs: result.latencyMs,
            degraded: result.degraded,
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
      const usage = usageOf(e);
      const reported = await step("report-failure", async () => {
        try {
          const r = await failJob(jobId, {
            runtimeInstanceId,
            attemptNo,
            errorCode: failure.code,
            errorMessage: failure.message,
            usage,
            retryAfterMs: failure.retryAfterMs,
            // The quality loop's last rejected output, kept at this attempt as a Runtime's report is.
            ...(failure.rejected
              ? { rejectedOutput: failure.rejected.output, violations: failure.rejected.violations }
              : {}),
          });
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

type StageOut<T> =
  | { value: T }
  | { failure: { code: JobFailure["code"]; message: string; usage?: Usage; retryAfterMs?: number } }
  | { stopped: "cancel" | "lost" };

/**
 * Stage steps return classified failures as data, so Inngest memoises them instead of retrying.
 * While a stage runs, a heartbeat timer (three beats per lease) keeps the lease: one model call
 * as long as the lease must not lose the job.
 */
function classifiedStage(step: Step, beat: () => Promise<void>): StageRunner {
  return async (id, fn) => {
    const out: StageOut<unknown> = await step(id, async () => {
      const timer = setInterval(() => void beat().catch(() => {}), Math.max(100, (jobConfig.leaseSeconds * 1000) / 3));
      try {
        return { value: await fn() };
      } catch (e) {
        if (isJobFailure(e))
          return { failure: { code: e.code, message: e.message, usage: e.usage, retryAfterMs: e.retryAfterMs } };
        if (e instanceof Stopped) return { stopped: e.reason };
        throw e;
      } finally {
        clearInterval(timer);
      }
    });
    if ("failure" in out) {
      const failure = new JobFailure(out.failure.code, out.failure.message, out.failure.retryAfterMs);
      failure.usage = out.failure.usage;
      throw failure;
    }
    if ("stopped" in out) throw new Stopped(out.stopped);
    return out.value as never;
  };
}
