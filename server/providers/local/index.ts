import { jobTypeOf, type JobTypeName } from "../../job-types";
import type { SnapshotContent } from "../../job-types/fields";
import { DEFAULT_LOCALE, type Locale } from "../../i18n/locales";
import type { InferenceRequest, InferenceResult, Provider } from "../types";

export const LOCAL_MODEL = "local-analyzer-1";

/**
 * The deterministic analysis of one job (its type's `analyse`): a pure function of snapshot,
 * params, the snapshot's time and the job's language (the text it writes; ./templates.ts).
 */
export function analyse(
  jobType: JobTypeName,
  snapshot: SnapshotContent,
  params: Record<string, unknown>,
  asOf: Date,
  locale: Locale = DEFAULT_LOCALE,
) {
  return jobTypeOf(jobType).analyse(snapshot, params, asOf, locale);
}

/**
 * The `local` provider: no network, no key; it ignores the prompt and computes the answer.
 * `delayMs` stands in for a model's latency (demo progress bars, tests that act mid-job).
 */
export function localProvider(opts: { delayMs?: number } = {}): Provider {
  return {
    name: "local",
    async infer(req: InferenceRequest): Promise<InferenceResult> {
      if (opts.delayMs) await sleep(opts.delayMs, req.signal);
      req.signal?.throwIfAborted();
      return {
        output: analyse(req.jobType, req.snapshot, req.params, req.asOf, req.locale),
        provider: "local",
        model: LOCAL_MODEL,
      };
    },
  };
}

function sleep(ms: number, signal?: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
