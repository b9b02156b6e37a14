import { now } from "../clock";
import type { JobTypeName } from "../job-types/catalogue";
import { isAppError } from "../errors";
import type { Holder } from "./fence";
import { MAX_RESULTS_PER_REQUEST } from "./constants";
import { checkResult, submitResult, type ResultAnswer } from "./results";
import { storeResults, type CheckedResult } from "./store-results";

/** One result of a batch: what POST /{jobId}/result takes, with the job it is for and that job's type. */
export type BatchedResult = CheckedResult["item"] & { jobType: JobTypeName };

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
  const checked = await Promise.all(
    items.map(async (item) => {
      try {
        return { item, ...(await checkResult(item.jobId, item)) };
      } catch (e) {
        if (isAppError(e)) return null; // an unknown job: the single path answers JOB_NOT_FOUND
        throw e;
      }
    }),
  );
  // An item that names another type than its job's: its output is refused, as one of the wrong type would be.
  const mistyped = new Map(
    checked.flatMap((c) => (c && c.item.jobType !== c.jobType ? [[c.item.jobId, c.jobType] as const] : [])),
  );
  const valid = checked.flatMap((c) =>
    c?.check.ok && !mistyped.has(c.item.jobId) ? [{ ...c, output: c.check.output }] : [],
  );
  const stored = valid.length ? await storeResults(holder, valid, at) : new Map<string, string>();
  const answers: BatchedAnswer[] = [];
  for (const item of items) {
    const actual = mistyped.get(item.jobId);
    if (actual) {
      const message = `the job is a ${actual} job, not ${item.jobType}`;
      const details = [{ path: "jobType", rule: "job_type_mismatch", message }];
      answers.push({
        jobId: item.jobId,
        httpStatus: 422,
        body: { error: { code: "INVALID_SCHEMA", message, details } },
      });
      continue;
    }
    const resultId = stored.get(item.jobId);
    if (resultId) {
      answers.push({ jobId: item.jobId, httpStatus: 200, body: { status: "succeeded", resultId, idempotent: false } });
      continue;
    }
    try {
      answers.push({
        jobId: item.jobId,
        httpStatus: 200,
        body: await submitResult(item.jobId, { ...item, ...holder }),
      });
    } catch (e) {
      if (!isAppError(e)) throw e;
      const error = { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) };
      answers.push({ jobId: item.jobId, httpStatus: e.status, body: { error } });
    }
  }
  return answers;
}
