import { isJobFailure, usageOf, type Rejected } from "../server/pipeline/errors";
import { pipelineInput, runPipeline } from "../server/pipeline/run-pipeline";
import type { ProgressReport } from "../server/pipeline/stages";
import type { Provider } from "../server/providers/types";
import type { LeasedJob, Usage } from "../server/runtime-api/contract";
import { ApiError, type ApiClient } from "./api-client";
import { backoffDelay, sleep } from "./backoff";
import type { Logger } from "./log";
import { rejectionFields } from "./rejection";
import { cleanUsage, refusalNeedsFail, resultBody } from "./submit";
import { inJobSpan, jobTraceFields } from "./tracing";

/** Why a job stopped before its pipeline finished. */
export type StopReason = "cancel" | "lost" | "shutdown";
class Stop extends Error {
  constructor(readonly reason: StopReason) {
    super(`job stopped: ${reason}`);
  }
}

export type RunnerDeps = {
  api: ApiClient;
  log: Logger;
  provider: Provider;
  heartbeatMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  deliveryDeadlineMs: number;
  /** The API's result body limit (RESULT_LIMITS.maxBodyBytes unless the API is configured otherwise). */
  maxResultBytes: number;
  instanceId: string;
};

/**
 * Runs one leased job: heartbeats (at once, at every stage change, and every heartbeatMs plus
 * jitter), the pipeline, then the result or a classified failure. cancelRequested from a
 * heartbeat aborts the pipeline and acknowledges with CANCELLED; a lost lease drops the job
 * silently (another attempt owns it now); `stop("shutdown")` hands it back as RUNTIME_SHUTDOWN.
 */
export function startJob(job: LeasedJob, deps: RunnerDeps, lockUntil?: string | Date) {
  const { api, log } = deps;
  const attemptNo = job.attemptNo;
  const fields = { jobId: job.id, jobType: job.jobType, attemptNo, ...jobTraceFields(job) };
  const controller = new AbortController();
  let state: ProgressReport = { stage: "prompt_builder", progress: 0 };
  let reportedStage: string | null = null;
  let beating: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let leaseEnds = lockUntil ? new Date(lockUntil).getTime() : NaN;
  // What the finished pipeline spent, for a stop that lands between its end and the submit.
  let spent: Usage | undefined;

  const stop = (reason: StopReason) => {
    if (!controller.signal.aborted) controller.abort(new Stop(reason));
  };

  const beat = () => {
    // One heartbeat in flight at a time; a stage change during one waits for it.
    beating ??= (async () => {
      try {
        const res = await api.heartbeat(job.id, {
          attemptNo,
          stage: state.stage,
          progress: state.progress,
          message: state.message,
        });
        leaseEnds = new Date(res.lockUntil).getTime();
        if (res.cancelRequested) stop("cancel");
      } catch (e) {
        if (e instanceof ApiError && !e.transient) {
          log("job.lease_lost", { ...fields, code: e.code, message: e.message }, "warn");
          stop("lost");
        } else {
          // The lease outlives a short API outage; the next heartbeat tries again.
          log("job.heartbeat_failed", { ...fields, message: (e as Error).message }, "warn");
        }
      } finally {
        beating = null;
      }
    })();
    return beating;
  };
  const schedule = () => {
    // Every heartbeatMs plus up to a third (15–20 s by default), but three times per lease at
    // least, so an API configured with a short lease never loses a healthy job.
    const regular = deps.heartbeatMs + Math.floor(Math.random() * (deps.heartbeatMs / 3));
    const left = leaseEnds - Date.now();
    const delay = left > 0 ? Math.min(regular, Math.max(100, Math.floor(left / 3))) : regular;
    timer = setTimeout(async () => {
      await beat();
      if (!controller.signal.aborted) schedule();
    }, delay);
  };

  // The attempt as a span in the job's trace; the pipeline's spans and the log lines sit inside it.
  const done = inJobSpan(job, deps.instanceId, async () => {
    log("job.started", { ...fields, provider: deps.provider.name });
    // The first stage report sends the first heartbeat (locked → running); a job that fails
    // before any stage reports its failure straight from locked.
    schedule();
    try {
      const result = await runPipeline(pipelineInput(job), {
        provider: deps.provider,
        signal: controller.signal,
        onProgress: async (report) => {
          state = report;
          if (report.stage === reportedStage) return;
          reportedStage = report.stage;
          log("job.stage", { ...fields, stage: report.stage, progress: report.progress });
          await beat();
        },
      });
      clearTimeout(timer);
      spent = result.usage;
      controller.signal.throwIfAborted();
      const body = resultBody(attemptNo, result, deps.instanceId, deps.maxResultBytes);
      if (!body.ok) {
        log("job.result_too_large", { ...fields, message: body.reason }, "warn");
        return await reportFailure("INVALID_SCHEMA", body.reason, result.usage);
      }
      const answer = await deliver(deps, () => api.result(job.id, { ...body.body, jobType: job.jobType }));
      if (answer.ok) {
        log("job.succeeded", {
          ...fields,
          resultId: answer.value.resultId,
          degraded: result.degraded,
          qualityLoops: result.qualityLoops,
          latencyMs: result.latencyMs,
        });
        return;
      }
      const refused = answer.error;
      log(
        refused.code === "JOB_CANCELLED" ? "job.cancelled" : "job.result_refused",
        { ...fields, status: refused.status, code: refused.code, message: refused.message },
        "warn",
      );
      // The attempt is still open (413, 400): end it now with the API's reason instead of waiting out the lease.
      if (refusalNeedsFail(refused)) {
        await reportFailure(
          "INVALID_SCHEMA",
          `the API refused the result (${refused.status} ${refused.code}): ${refused.message}`,
          result.usage,
        );
      }
    } catch (e) {
      clearTimeout(timer);
      const reason = controller.signal.aborted ? (controller.signal.reason as Stop).reason : null;
      if (reason === "lost") return log("job.abandoned", { ...fields, reason: "lease lost" }, "warn");
      const [code, message] =
        reason === "cancel"
          ? ["CANCELLED", "stopped on cancel request"]
          : reason === "shutdown"
            ? ["RUNTIME_SHUTDOWN", "the Runtime is shutting down"]
            : isJobFailure(e)
              ? [e.code, e.message]
              : // A bug in the pipeline is not the job's fault: let it run again, elsewhere.
                ["TEMPORARY_PROVIDER_ERROR", `runtime error: ${(e as Error)?.message ?? String(e)}`];
      if (!reason && !isJobFailure(e))
        log("job.error", { ...fields, message: (e as Error)?.stack ?? String(e) }, "error");
      await reportFailure(
        code,
        message,
        usageOf(e) ?? spent,
        isJobFailure(e) ? e.retryAfterMs : undefined,
        isJobFailure(e) ? e.rejected : undefined,
      );
    }
  });

  /**
   * A classified failure with the attempt's usage, for 429/503 the provider's Retry-After, and
   * when the quality loop gave up the output it last rejected with the rules it broke.
   */
  async function reportFailure(
    code: string,
    message: string,
    usage: Usage | undefined,
    retryAfterMs?: number,
    rejected?: Rejected,
  ) {
    const body = {
      attemptNo,
      errorCode: code,
      errorMessage: message.slice(0, 2000),
      ...(cleanUsage(usage) ? { usage: cleanUsage(usage) } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
    const report = {
      ...body,
      ...rejectionFields(rejected, { runtimeInstanceId: deps.instanceId, ...body }, deps.maxResultBytes),
    };
    const answer = await deliver(deps, () => api.fail(job.id, report));
    const event = code === "CANCELLED" ? "job.cancelled" : "job.failed";
    if (answer.ok)
      log(event, {
        ...fields,
        code,
        message,
        status: answer.value.status,
        retryCount: answer.value.retryCount,
        runAfter: answer.value.runAfter,
      });
    else log(event, { ...fields, code, message, refused: answer.error.code }, "warn");
  }

  return { id: job.id, done, stop };
}

type Delivered<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/**
 * Sends a result or failure until the API answers. While it is unreachable the call is repeated
 * with backoff; the same result again is idempotent on the API, so a lost answer costs nothing.
 * After the deadline the lease has long passed and the sweep has handed the job to someone else.
 */
async function deliver<T>(deps: RunnerDeps, send: () => Promise<T>): Promise<Delivered<T>> {
  const deadline = Date.now() + deps.deliveryDeadlineMs;
  for (let failures = 1; ; failures++) {
    try {
      return { ok: true, value: await send() };
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (!e.transient || Date.now() > deadline) return { ok: false, error: e };
      deps.log("api.retry", { code: e.code, message: e.message, failures }, "warn");
      await sleep(backoffDelay(failures, deps.backoffBaseMs, deps.backoffMaxMs));
    }
  }
}
