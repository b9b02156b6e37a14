import type { DbOrTx } from "../db";
import type { JobType } from "../generated/prisma/enums";

/**
 * A job's input never changes after creation (type, params, snapshot), so a process may keep it
 * once it has seen it — at lock or claim time — and validate that job's result without reading the
 * row again. The output schema version is not immutable: the success that ends the job rewrites
 * it to the version its result used. Kept here it is only the default for a result that names
 * none, and after that success no other output is accepted, whatever version it claims.
 */
export type JobContext = {
  jobType: JobType;
  params: unknown;
  snapshotId: string | null;
  outputSchemaVersion: string | null;
};

const cache = new Map<string, JobContext>();
const LIMIT = 20_000;

export function rememberJobContext(id: string, ctx: JobContext) {
  if (cache.size >= LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(id, ctx);
}

export async function getJobContext(db: DbOrTx, id: string): Promise<JobContext | null> {
  const hit = cache.get(id);
  if (hit) return hit;
  const row = await db.aiRuntimeJob.findUnique({
    where: { id },
    select: { jobType: true, params: true, snapshotId: true, outputSchemaVersion: true },
  });
  if (row) rememberJobContext(id, row);
  return row;
}
