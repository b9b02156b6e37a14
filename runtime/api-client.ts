import type { z } from "zod";
import {
  errorResponse,
  failResponse,
  heartbeatResponse,
  pollResponse,
  RESULT_LIMITS,
  resultResponse,
  resultsResponse,
  type Usage,
} from "../server/runtime-api/contract";
import type { RejectionFields } from "./rejection";
import { postText } from "./http-post";
import { createResultBatcher } from "./result-batcher";
import { MAX_RESULTS_PER_REQUEST } from "../server/jobs/constants";

/** A failed call to the API. `status` is null when no HTTP answer arrived (unreachable, timed out). */
export class ApiError extends Error {
  constructor(
    readonly status: number | null,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** Worth repeating later: no answer, a 5xx (e.g. 503 while the database is down) or 429. */
  get transient() {
    return this.status === null || this.status >= 500 || this.status === 429;
  }
}

export type ApiOptions = {
  apiUrl: string;
  apiKey: string;
  instanceId: string;
  requestTimeoutMs: number;
  /** The API's body limit (RUNTIME_MAX_BODY_BYTES); results sent together stay within it. */
  maxResultBytes?: number;
};

type ResultBody = Record<string, unknown> & { attemptNo: number; output: Record<string, unknown>; jobType: string };
type ResultAnswer = z.infer<typeof resultResponse>;

/**
 * The Runtime protocol as a client. Every answer, success or error, is checked against the
 * shared zod contract, so a Runtime never acts on a response it does not understand.
 */
export function createApiClient(opts: ApiOptions) {
  async function post<S extends z.ZodType>(
    path: string,
    body: Record<string, unknown>,
    schema: S,
    opt: { extraTimeMs?: number; signal?: AbortSignal } = {},
  ): Promise<z.infer<S>> {
    const timeout = AbortSignal.timeout(opts.requestTimeoutMs + (opt.extraTimeMs ?? 0));
    const signal = opt.signal ? AbortSignal.any([timeout, opt.signal]) : timeout;
    let res: { status: number; text: string };
    try {
      res = await postText(
        `${opts.apiUrl}/internal/runtime/jobs${path}`,
        opts.apiKey,
        JSON.stringify({ runtimeInstanceId: opts.instanceId, ...body }),
        signal,
      );
    } catch (e) {
      // A time-out or a shutdown says which; otherwise the socket's code (ECONNREFUSED, ECONNRESET…).
      const why = signal.aborted ? (signal.reason as Error)?.message : (e as { code?: string }).code;
      throw new ApiError(null, "UNREACHABLE", `API unreachable: ${why ?? (e as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(res.text);
    } catch {
      throw new ApiError(
        res.status >= 500 ? res.status : null,
        "BAD_RESPONSE",
        `API answered ${res.status} without JSON`,
      );
    }
    const ok = res.status >= 200 && res.status < 300;
    if (!ok) {
      const err = errorResponse.safeParse(json);
      if (!err.success)
        throw new ApiError(res.status, "BAD_RESPONSE", `API answered ${res.status} outside the contract`);
      throw new ApiError(res.status, err.data.error.code, err.data.error.message);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ");
      throw new ApiError(res.status, "BAD_RESPONSE", `response of ${path} does not match the contract: ${issues}`);
    }
    return parsed.data;
  }

  const single = (jobId: string, body: Omit<ResultBody, "jobType">) =>
    post(`/${encodeURIComponent(jobId)}/result`, body, resultResponse);
  const wrapper = JSON.stringify({ runtimeInstanceId: opts.instanceId, results: [] }).length;
  const batcher = createResultBatcher<ResultBody & { jobId: string }, ResultAnswer>({
    send: async (items) => {
      const { results } = await post("/results", { results: items }, resultsResponse);
      if (results.length !== items.length || results.some((r, i) => r.jobId !== items[i]!.jobId))
        throw new ApiError(200, "BAD_RESPONSE", "the answer to /results does not list the results sent, in order");
      // Each result as its own request would have ended: its answer, or its error.
      return results.map((r) =>
        "error" in r.body
          ? { ok: false, error: new ApiError(r.httpStatus, r.body.error.code, r.body.error.message) }
          : { ok: true, value: r.body },
      );
    },
    sizeOf: (item) => Buffer.byteLength(JSON.stringify(item)),
    maxItems: MAX_RESULTS_PER_REQUEST,
    maxBytes: (opts.maxResultBytes ?? RESULT_LIMITS.maxBodyBytes) - wrapper,
  });

  return {
    /** With waitMs the API holds an empty answer that long (long poll): the request may take that much longer. */
    poll: (
      body: { capabilities: string[]; limit: number; claim: true; runtimeVersion: string; waitMs?: number },
      signal?: AbortSignal,
    ) => post("/poll", body, pollResponse, { extraTimeMs: body.waitMs ?? 0, signal }),
    heartbeat: (jobId: string, body: { attemptNo: number; stage?: string; progress?: number; message?: string }) =>
      post(`/${encodeURIComponent(jobId)}/heartbeat`, body, heartbeatResponse),
    /**
     * A job's result. Results that end while another result request is in flight go together in
     * the next one (POST /results, runtime/result-batcher.ts); each still gets its own answer or error.
     */
    result: (jobId: string, body: ResultBody) => {
      const item = { jobId, ...body };
      if (batcher.fits(item)) return batcher.submit(item);
      // POST /{jobId}/result names the job in its path; its type is the job's.
      const { jobType: _type, ...alone } = body;
      return single(jobId, alone as Omit<ResultBody, "jobType">);
    },
    fail: (
      jobId: string,
      body: {
        attemptNo: number;
        errorCode: string;
        errorMessage: string;
        usage?: Usage;
        retryAfterMs?: number;
      } & RejectionFields,
    ) => post(`/${encodeURIComponent(jobId)}/fail`, body, failResponse),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
