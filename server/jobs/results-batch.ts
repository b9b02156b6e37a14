import { now } from "../clock";
import type { JobTypeName } from "../job-types/catalogue";
import { isAppError } from "../errors";
import type { Holder } from "./fence";
import { MAX_RESULTS_PER_REQUEST } from "./constants";
import { checkResult, submitResult, type ResultAnswer } from "./results";
import { gateResults } from "./lease-gate";
import { storeResults, type CheckedResult } from "./store-results";

/** One result of a batch: what POST /{jobId}/result takes, with the job it is for and that job's type. */
export type BatchedResult = CheckedResult["item"] & { jobType?: JobTypeName };

/** Per result, what its own POST /{jobId}/result would have answered: the status and the body. */
export type BatchedAnswer = {
  jobId: string;
  httpStatus: number;
  body: ResultAnswer | { error: { code: string; message: string; details?: unknown } };
};

/**
 * Several results of one Runtime in one request, each with exactly the outcome it would have had
 * alone (POST /{jobId}/result): fenced on its own lease, idempotent per attempt and output, refused
 * with its own error. The valid results of jobs still held are stored by one statement (one
 * transaction, one event and one push per job); every other result (a repeat, a lost lease, a
 * cancel, an invalid output) then goes the single result's way, which says why. A Runtime whose
 * short jobs end together thus pays one request and one commit for all of them.
 */
export async function submitResults(holder: Holder, items: BatchedResult[]): Promise<BatchedAnswer[]> {
  if (items.length > MAX_RESULTS_PER_REQUEST) throw new Error(`at most ${MAX_RESULTS_PER_REQUEST} results at once`);
  const at = now();
  // The leases first (one read for the jobs this process did not lease out): a result that cannot
  // be stored is answered without its checks, and a job this key never held as one that does not exist.
  const gate = await gateResults(holder, items, at);
  // Then each remaining item's checks, once: the single path below reuses them.
  const checked = await Promise.all(
    items.map(async (item, i) => {
      if (gate[i]) return null;
      try {
        return { item, ...(await checkResult(item.jobId, item)) };
      } catch (e) {
        if (isAppError(e)) return e;
        throw e;
      }
    }),
  );
  const valid = checked.flatMap((c) =>
    c && !isAppError(c) && c.check.ok
      ? [{ ...c, item: { ...c.item, degraded: c.degraded }, output: c.check.output }]
      : [],
  );
  const stored = valid.length ? await storeResults(holder, valid, at) : new Map<string, string>();
  const degradedOf = new Map(valid.map((v) => [v.item.jobId, v.degraded]));
  const answers: BatchedAnswer[] = [];
  for (const [i, item] of items.entries()) {
    const resultId = stored.get(item.jobId);
    if (resultId) {
      const degraded = degradedOf.get(item.jobId) ?? false;
      answers.push({
        jobId: item.jobId,
        httpStatus: 200,
        body: { status: "succeeded", resultId, idempotent: false, degraded },
      });
      continue;
    }
    try {
      const c = checked[i];
      if (gate[i]) throw gate[i];
      if (isAppError(c)) throw c;
      // Not stored (a repeat, a lost lease, a cancel, a refused output): the single result's way says why.
      answers.push({
        jobId: item.jobId,
        httpStatus: 200,
        body: await submitResult(item.jobId, { ...item, ...holder }, c!),
      });
    } catch (e) {
      if (!isAppError(e)) throw e;
      const error = { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) };
      answers.push({ jobId: item.jobId, httpStatus: e.status, body: { error } });
    }
  }
  return answers;
}
