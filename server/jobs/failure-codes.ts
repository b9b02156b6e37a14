/* A leaf: no imports (the pipeline, the analyzers and the API all read the codes). */

/** Failure codes a Runtime may report, with the seed's retry class. */
export const FAILURE_CODES = {
  MODEL_TIMEOUT: { retryable: true },
  MODEL_RATE_LIMIT: { retryable: true },
  NETWORK_ERROR: { retryable: true },
  TEMPORARY_PROVIDER_ERROR: { retryable: true },
  JOB_TIMEOUT: { retryable: true },
  /** The Runtime is shutting down and hands the job back (not a fault of the job). */
  RUNTIME_SHUTDOWN: { retryable: true },
  INVALID_SNAPSHOT: { retryable: false },
  INVALID_SCHEMA: { retryable: false },
  INVALID_CREDENTIAL: { retryable: false },
  /** Acknowledges cancelRequested: the job ends cancelled. */
  CANCELLED: { retryable: false },
} as const;

export type FailureCode = keyof typeof FAILURE_CODES;

/** Codes only the app writes on a job (a Runtime may not report them). */
export const APP_FAILURE_CODES = {
  /** The Runtime key that held the lease was revoked, or its scopes no longer cover the job: the attempt ended and the job is pending again, no retry spent. */
  LEASE_REVOKED: { retryable: true },
} as const;

/** Every code a job's error may carry: what Runtimes report and what the app writes itself. */
export const JOB_ERROR_CODES = [
  ...(Object.keys(FAILURE_CODES) as FailureCode[]),
  ...(Object.keys(APP_FAILURE_CODES) as (keyof typeof APP_FAILURE_CODES)[]),
] as [FailureCode | keyof typeof APP_FAILURE_CODES, ...(FailureCode | keyof typeof APP_FAILURE_CODES)[]];
export type JobErrorCode = (typeof JOB_ERROR_CODES)[number];

/**
 * Own keys only: `"toString" in FAILURE_CODES` is true (inherited from Object.prototype), which
 * once let a Runtime fail a job with errorCode "toString" and leave it failed without finishedAt.
 */
export function isFailureCode(code: string): code is FailureCode {
  return Object.hasOwn(FAILURE_CODES, code);
}
