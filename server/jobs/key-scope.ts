import type { JobType } from "../generated/prisma/enums";

/**
 * A key's scopes (SPEC §7): the job types it may claim and lock (empty: every type), and whether
 * it may run jobs on a learner's own DeepSeek key — and so receive that key in a lease. A key
 * without that scope never takes such a job (claim and poll pass it by, lock answers
 * JOB_NOT_LOCKABLE), so a learner's job never runs on the platform's key against their choice.
 */
export type KeyScope = { jobTypes: JobType[]; mayReceiveLearnerKeys: boolean };
/** What a new key may do unless created with more: every type, no learner keys. */
export const DEFAULT_SCOPE: KeyScope = { jobTypes: [], mayReceiveLearnerKeys: false };
/** The dev/demo reference Runtime's and the test Runtimes' keys: everything. */
export const FULL_SCOPE: KeyScope = { jobTypes: [], mayReceiveLearnerKeys: true };
