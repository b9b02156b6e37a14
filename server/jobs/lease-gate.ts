import { getDb } from "../db";
import type { AppError } from "../errors";
import { HOLDER_COLUMNS, holdsRow, lockLost, notFound, type Holder } from "./fence";

/**
 * The gate a result passes before its checks (schema, quality and evidence rules: the expensive
 * part): a job this key never held is answered exactly as one that does not exist (404
 * JOB_NOT_FOUND, the same message), so a key learns nothing of other keys' jobs; a job it held but
 * holds no more is LOCK_LOST, unchecked. Only a held job, or a finished one of this key (a repeat,
 * idempotent or RESULT_ALREADY_EXISTS), goes on to its checks. The fenced write stays the authority:
 * the gate only keeps the work away from results that cannot be stored.
 *
 * Leases this process granted (the poll's claims and locks) are remembered, so the common result,
 * from its holder in the same process, passes without a read.
 */
const granted = new Map<string, { runtimeInstanceId: string; keyId: string | null; attemptNo: number }>();
const LIMIT = 20_000;

export function rememberLease(jobId: string, holder: Holder, attemptNo: number) {
  if (granted.size >= LIMIT) granted.delete(granted.keys().next().value as string);
  granted.set(jobId, { runtimeInstanceId: holder.runtimeInstanceId, keyId: holder.keyId ?? null, attemptNo });
}

type Item = { jobId: string; attemptNo: number };

/**
 * Per item, null when it may go on to its checks, else the error it is answered with (without
 * checks). One read for every item whose lease this process did not grant.
 */
export async function gateResults(holder: Holder, items: Item[], at: Date): Promise<(AppError | null)[]> {
  const remembered = (i: Item) => {
    const g = granted.get(i.jobId);
    return (
      !!g &&
      g.runtimeInstanceId === holder.runtimeInstanceId &&
      g.attemptNo === i.attemptNo &&
      (holder.keyId == null || g.keyId === holder.keyId)
    );
  };
  const unknown = [...new Set(items.filter((i) => !remembered(i)).map((i) => i.jobId))];
  const rows = unknown.length
    ? await getDb().aiRuntimeJob.findMany({ where: { id: { in: unknown } }, select: { id: true, ...HOLDER_COLUMNS } })
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return Promise.all(
    items.map(async (i) => {
      if (remembered(i)) return null;
      const job = byId.get(i.jobId);
      if (!job || (holder.keyId != null && job.lockedByKeyId !== holder.keyId)) return notFound(i.jobId);
      if (holdsRow(job, holder, i.attemptNo, at) || job.status === "succeeded") return null;
      return lockLost(i.jobId, holder);
    }),
  );
}
