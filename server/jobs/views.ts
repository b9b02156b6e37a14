import { Prisma, type AiRuntimeJob } from "../generated/prisma/client";

/**
 * Columns that never leave the domain: the credential and key ids, the input hash, the fair
 * queue's turn and the queue row's write counter, the cancel request's time. Every other column of the job row is in the view;
 * tests/jobs/views.test.ts checks this list against the Prisma model, as RETURNED is.
 */
export const HIDDEN_JOB_COLUMNS = [
  "credentialId",
  "lockedByKeyId",
  "inputHash",
  "queueTurn",
  "queueSeq",
  "cancelRequestedAt",
] as const satisfies readonly (keyof AiRuntimeJob)[];
type Hidden = (typeof HIDDEN_JOB_COLUMNS)[number];
type Shown = Exclude<keyof AiRuntimeJob, Hidden>;
const HIDDEN: ReadonlySet<string> = new Set(HIDDEN_JOB_COLUMNS);
/** The view's columns: the Prisma model's scalar columns (never relations a query included) less the hidden ones. */
export const JOB_VIEW_COLUMNS = Object.values(Prisma.AiRuntimeJobScalarFieldEnum).filter(
  (c) => !HIDDEN.has(c),
) as Shown[];

/**
 * What leaves the domain about a job: every column but the hidden ones, plus its result's id.
 * The tRPC layer and the Runtime contract both shape their answers from this.
 */
export function toJobView(job: AiRuntimeJob & { result?: { id: string } | null }) {
  const view = {} as Record<string, unknown>;
  for (const column of JOB_VIEW_COLUMNS) view[column] = job[column];
  return {
    ...(view as Pick<AiRuntimeJob, Shown>),
    params: job.params as Record<string, unknown>,
    resultId: job.result?.id ?? null,
  };
}
