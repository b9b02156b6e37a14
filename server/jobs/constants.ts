import type { JobStatus } from "../generated/prisma/enums";

/** The job types, from the catalogue (server/job-types/catalogue.ts). */
export { JOB_TYPES } from "../job-types/catalogue";

export const JOB_STATUSES = [
  "pending",
  "locked",
  "running",
  "succeeded",
  "failed",
  "cancelled",
  "expired",
] as const satisfies readonly JobStatus[];

/** The status sets: every other list of statuses (TypeScript or SQL) is built from these. */
export const TERMINAL_STATUSES = ["succeeded", "failed", "cancelled"] as const satisfies readonly JobStatus[];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
export const IN_FLIGHT_STATUSES: readonly JobStatus[] = ["pending", "locked", "running", "expired"];
/**
 * A Runtime holds the lease. Not `expired`: that is the end of an attempt (docs/contract.md#states-and-transitions), the holder
 * has lost the lease, and the sweep moves the row on in the same statement.
 */
export const HELD_STATUSES: readonly JobStatus[] = ["locked", "running"];
/** Cancel applies: pending ends at once, held ones are asked to stop (docs/contract.md#consent-credentials-and-cancellation). */
export const CANCELLABLE_STATUSES: readonly JobStatus[] = ["pending", ...HELD_STATUSES];
/** An admin re-run applies (docs/contract.md#states-and-transitions: failed, or cancelled). */
export const RERUNNABLE_STATUSES: readonly JobStatus[] = ["failed", "cancelled"];
/** Finished with an outcome of the work itself: what success and failure rates count. */
export const OUTCOME_STATUSES: readonly JobStatus[] = ["succeeded", "failed"];
/** Where a failed attempt goes: back to pending for a retry, or failed (with its errorCode either way). */
export const FAILED_ATTEMPT_STATUSES: readonly JobStatus[] = ["pending", "failed"];
/** What the console's status counts show; `expired` never stays (the sweep moves it on at once). */
export const SHOWN_STATUSES: readonly JobStatus[] = JOB_STATUSES.filter((s) => s !== "expired");

export const isTerminal = (s: string): s is TerminalStatus => (TERMINAL_STATUSES as readonly string[]).includes(s);
export const isHeld = (s: string) => (HELD_STATUSES as readonly string[]).includes(s);

export const TARGET_TYPES = ["user", "material", "knowledge_point"] as const;
export const API_KEY_MODES = ["platform_key", "user_deepseek_key"] as const;

export { FAILURE_CODES, JOB_ERROR_CODES, isFailureCode, type FailureCode, type JobErrorCode } from "./failure-codes";

/**
 * The shortest execution timeout a job may have (JOB_TIMEOUT_SECONDS and createJob hold to it): a
 * lease lasts at least LEAST(JOB_LEASE_SECONDS, timeoutSeconds) from lockedAt.
 */
export const MIN_TIMEOUT_SECONDS = 10;

/** At most this many results in one POST /results (as many as one claim can return). */
export const MAX_RESULTS_PER_REQUEST = 50;
