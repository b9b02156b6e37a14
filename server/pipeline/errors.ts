import type { FailureCode } from "../jobs/failure-codes";
import type { Violation } from "../jobs/violation";
import type { Usage } from "../runtime-api/usage";

/** The last output the quality loop rejected and the rules it broke, reported with the failure. */
export type Rejected = { output: unknown; violations: Violation[] };

/**
 * A classified failure of one job attempt. The Runtime reports `code` to the API's fail
 * endpoint, which decides from the code's retry class whether the job runs again. `usage` is
 * what the attempt's model calls cost so far; `retryAfterMs` is the provider's Retry-After.
 */
export class JobFailure extends Error {
  usage?: Usage;
  /** Set when the quality loop gave up: what the model last sent, for the API to keep at this attempt. */
  rejected?: Rejected;
  constructor(
    readonly code: FailureCode,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "JobFailure";
  }
}

export function isJobFailure(e: unknown): e is JobFailure {
  return e instanceof JobFailure;
}

/** The usage the pipeline attached to whatever stopped it (a failure, a cancel, a bug). */
export function usageOf(e: unknown): Usage | undefined {
  return e && typeof e === "object" ? (e as { usage?: Usage }).usage : undefined;
}

/** Adds one model call's usage into an attempt's running total. */
export function addUsage(total: Usage, call: Usage | undefined): Usage {
  if (!call) return total;
  const sum = (a?: number, b?: number) => (a ?? 0) + (b ?? 0);
  return {
    provider: call.provider ?? total.provider,
    model: call.model ?? total.model,
    promptTokens: sum(total.promptTokens, call.promptTokens),
    completionTokens: sum(total.completionTokens, call.completionTokens),
    durationMs: sum(total.durationMs, call.durationMs),
  };
}
