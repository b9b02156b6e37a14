import type { FailureCode } from "../jobs/constants";

/**
 * A classified failure of one job attempt. The Runtime reports `code` to the API's fail
 * endpoint, which decides from the code's retry class whether the job runs again.
 */
export class JobFailure extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
  ) {
    super(message);
    this.name = "JobFailure";
  }
}

export function isJobFailure(e: unknown): e is JobFailure {
  return e instanceof JobFailure;
}
