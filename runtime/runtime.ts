import { getEventListeners } from "node:events";
import { createApiClient, type ApiClient } from "./api-client";
import { backoffDelay, sleep } from "./backoff";
import type { RuntimeConfig } from "./config";
import { startJob } from "./job-runner";
import { createLogger, type Logger } from "./log";
import { providerFor } from "./providers";

export const RUNTIME_VERSION = "reference-runtime/0.1.0";

/**
 * The reference Runtime: claims up to `concurrency` jobs at a time through poll with
 * claim:true and a long poll (waitMs: the API holds the request until a job arrives, so an idle
 * Runtime makes one request per waitMs and picks a new job up within milliseconds), runs each
 * through the pipeline, waits pollIntervalMs only when an empty answer came back early (an API
 * without long poll, or one that is draining), and backs off exponentially while the API is
 * unreachable (it never exits on an API error).
 */
export function createRuntime(config: RuntimeConfig, deps: { api?: ApiClient; log?: Logger } = {}) {
  const log = deps.log ?? createLogger({ runtimeInstanceId: config.instanceId });
  const api = deps.api ?? createApiClient(config);
  const running = new Map<string, ReturnType<typeof startJob>>();
  const stopping = new AbortController();
  let slotFreed: () => void = () => {};
  let fullSlotWaits = 0;

  async function loop() {
    log("runtime.started", {
      apiUrl: config.apiUrl,
      capabilities: config.capabilities,
      concurrency: config.concurrency,
      provider: config.provider,
    });
    let failures = 0;
    while (!stopping.signal.aborted) {
      const free = config.concurrency - running.size;
      if (free <= 0) {
        // Wait for a slot or the shutdown; the abort listener goes with the wait, or a long run
        // with a full slot table would pile one up per wait (MaxListenersExceededWarning).
        fullSlotWaits++;
        await new Promise<void>((resolve) => {
          const done = () => {
            stopping.signal.removeEventListener("abort", done);
            slotFreed = () => {};
            resolve();
          };
          slotFreed = done;
          stopping.signal.addEventListener("abort", done, { once: true });
        });
        continue;
      }
      let claimed;
      let interval: number;
      const askedAt = Date.now();
      try {
        const res = await api.poll(
          {
            capabilities: config.capabilities,
            limit: free,
            claim: true,
            runtimeVersion: RUNTIME_VERSION,
            waitMs: config.waitMs,
          },
          stopping.signal,
        );
        if (failures) log("api.reachable", { after: failures });
        failures = 0;
        interval = config.pollIntervalMs ?? res.pollIntervalMs;
        claimed = res.jobs.flatMap((j) => ("job" in j ? [j] : []));
      } catch (e) {
        if (stopping.signal.aborted) break;
        failures++;
        const delay = backoffDelay(failures, config.backoffBaseMs, config.backoffMaxMs);
        log("api.poll_failed", { message: (e as Error).message, failures, retryInMs: delay }, "warn");
        await sleep(delay, stopping.signal);
        continue;
      }
      // Jobs claimed while a shutdown began still run: shutdown waits for them, then hands them back.
      for (const { job, lockUntil } of claimed) {
        const deps = {
          api,
          log,
          provider: providerFor(job, config),
          heartbeatMs: config.heartbeatMs,
          backoffBaseMs: config.backoffBaseMs,
          backoffMaxMs: config.backoffMaxMs,
          deliveryDeadlineMs: config.deliveryDeadlineMs,
          maxResultBytes: config.maxResultBytes,
          instanceId: config.instanceId,
        };
        const run = startJob(job, deps, lockUntil);
        running.set(job.id, run);
        void run.done
          .catch((e) => log("job.error", { jobId: job.id, message: (e as Error)?.stack ?? String(e) }, "error"))
          .finally(() => {
            running.delete(job.id);
            slotFreed();
          });
      }
      // Ask again at once after any job (more may be waiting) or after a wait the API held; an
      // empty answer that came back early means no long poll there: wait pollIntervalMs.
      const held = config.waitMs > 0 && Date.now() - askedAt >= config.waitMs / 2;
      if (!claimed.length && !held) await sleep(interval, stopping.signal);
    }
  }

  const loopDone = loop().catch((e) =>
    log("runtime.loop_error", { message: (e as Error)?.stack ?? String(e) }, "error"),
  );

  return {
    log,
    get runningJobs() {
      return [...running.keys()];
    },
    /** Listeners on the Runtime's own stop signal: constant however long it runs (leak check). */
    get stopListeners() {
      return getEventListeners(stopping.signal, "abort").length;
    },
    get fullSlotWaits() {
      return fullSlotWaits;
    },
    /**
     * SIGTERM: claim nothing more, let running jobs finish within the grace period, then hand
     * the rest back as RUNTIME_SHUTDOWN (retryable) so another Runtime picks them up at once.
     */
    async shutdown(graceMs: number) {
      if (stopping.signal.aborted) return;
      log("runtime.stopping", { running: running.size, graceMs });
      stopping.abort();
      await loopDone;
      const all = () => Promise.allSettled([...running.values()].map((r) => r.done));
      await Promise.race([all(), sleep(graceMs)]);
      const left = [...running.values()];
      for (const r of left) r.stop("shutdown");
      await all();
      log("runtime.stopped", { handedBack: left.length });
    },
  };
}
