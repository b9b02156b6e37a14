import { context, createContextKey, ROOT_CONTEXT, SpanStatusCode, trace, type Link } from "@opentelemetry/api";
import { contextFrom, defined, failSpan, formatTraceparent, inSpan, tracer, tracingOn } from "./tracing";

/**
 * One trace per job (docs/contract.md#deployment-shapes). A job is created in one request and claimed later by another
 * process, so the creating span's context is stored with the job (AiRuntimeJob.traceparent) and
 * every later span of the job starts as its child: each status change here, and through the lease
 * answer's `traceparent` the Runtime's attempt, stages and model calls. Spans carry job ids, types,
 * statuses and codes, never a learner's id or data (a trace outlives an erasure in the collector).
 */

/**
 * What a span reads of a changed job row and of its change (the state machine's JobRow and
 * TransitionSpec fit; named here by shape so that tracing imports nothing of the domain it traces).
 */
type TracedRow = {
  id: string;
  status: string;
  fromStatus: string | null;
  errorCode: string | null;
  traceparent: string | null;
  jobType?: string;
  attemptNo?: number;
  retryCount?: number;
};
type TracedChange = { action: keyof typeof TRANSITION_SPANS; actor: { type: string; id?: string | null } };

/** The span of each status change, by the state machine's action. */
const TRANSITION_SPANS = {
  lock: "job.lock",
  claim: "job.claim",
  heartbeat: "job.start",
  succeed: "job.succeed",
  fail: "job.fail",
  cancelPending: "job.cancel",
  requestCancel: "job.cancel_request",
  expire: "job.expire",
  keyLost: "job.key_lost",
  eraseCancel: "job.erase_cancel",
};

/**
 * A span per changed row, in that job's trace, from the statement's start to now; rows of jobs
 * created with traces off (no traceparent) get none. A heartbeat that changes no status is not a
 * span. After a claim or lock the row's traceparent becomes the new span's: the attempt's context,
 * which the lease answer hands the Runtime. A change made inside a traced request (an admin's
 * cancel) links to that request's span.
 */
export function traceTransitions<R extends TracedRow>(rows: R[], specOf: (row: R) => TracedChange, startTime: number) {
  const active = trace.getActiveSpan()?.spanContext();
  const links: Link[] = active && trace.isSpanContextValid(active) ? [{ context: active }] : [];
  for (const row of rows) {
    const spec = specOf(row);
    if (!row.traceparent || (row.fromStatus === row.status && spec.action !== "requestCancel")) continue;
    const parent = contextFrom(row.traceparent);
    const sameTrace = links[0]?.context.traceId === trace.getSpanContext(parent)?.traceId;
    const span = tracer().startSpan(
      TRANSITION_SPANS[spec.action],
      {
        startTime,
        links: sameTrace ? [] : links,
        attributes: defined({
          "job.id": row.id,
          "job.type": row.jobType,
          "job.attempt": row.attemptNo,
          "job.previous_status": row.fromStatus,
          "job.status": row.status,
          "job.error_code": row.errorCode,
          "job.retry_count": row.retryCount,
          "job.actor.type": spec.actor.type,
          "job.actor.id": spec.actor.type === "learner" ? null : spec.actor.id,
        }),
      },
      parent,
    );
    if (row.status === "failed") span.setStatus({ code: SpanStatusCode.ERROR, message: row.errorCode ?? "failed" });
    span.end();
    if (spec.action === "claim" || spec.action === "lock")
      row.traceparent = formatTraceparent(span.spanContext()) ?? row.traceparent;
  }
}

/** Set by `inBatchSpan`: jobs created under it start traces of their own, linked to the batch. */
const BATCH = createContextKey("ai-job-runtime.job-batch");

/** Set by `fromUntrustedDoor`: the request's trace context came from a client that may not choose it. */
const UNTRUSTED = createContextKey("ai-job-runtime.untrusted-trace-parent");

/**
 * Runs a door's handler whose caller may not decide a job's trace: a learner's browser session
 * (tRPC, the learner's route handlers). Next continues an incoming `traceparent` in the request's
 * span; jobs created under this start traces of their own instead (a fresh trace id, sampled by
 * the app's own sampler), with no link to the request. Only the platform API and the Runtime
 * protocol, which carry a platform's or a Runtime's own context, continue theirs.
 */
export function fromUntrustedDoor<T>(fn: () => T): T {
  if (!tracingOn()) return fn();
  return context.with(context.active().setValue(UNTRUSTED, true), fn);
}

/**
 * A span for work that creates many learners' jobs (the weekly analyses, a bulk re-run): each job's
 * creation span starts a trace of its own with a link to this one, so one job is one trace and a
 * batch of a thousand is not one trace of a thousand jobs.
 */
export function inBatchSpan<T>(name: string, attributes: Record<string, string | number>, fn: () => Promise<T>) {
  if (!tracingOn()) return fn();
  return inSpan(name, attributes, (span) => context.with(context.active().setValue(BATCH, span.spanContext()), fn));
}

type Plan = {
  input: {
    jobType: string;
    target: { type: string };
    priority?: number;
    actor: { type: string };
    retriedFromJobId?: string | null;
  };
  data: { traceparent?: string | null };
};

/**
 * The `job.create` span of each new job, around the creating transaction: a child of the request
 * that asked (a platform API call's — Next's request span, which continues an incoming
 * `traceparent`), a root under a door that may not choose it (a learner's session:
 * `fromUntrustedDoor`), or under a batch a root linked to it. Its context is written into the
 * row before the insert; the job's id is added once the transaction has made it.
 */
export async function withCreationSpans<P extends Plan, R extends Map<P, { id: string }>>(
  plans: P[],
  run: () => Promise<R>,
): Promise<R> {
  if (!tracingOn()) return run();
  const batch = context.active().getValue(BATCH) as Link["context"] | undefined;
  const detached = !!batch || context.active().getValue(UNTRUSTED) === true;
  const spans = plans.map((p) => {
    const span = tracer().startSpan(
      "job.create",
      {
        root: detached,
        links: batch ? [{ context: batch }] : [],
        attributes: defined({
          "job.type": p.input.jobType,
          "job.target.type": p.input.target.type,
          "job.priority": p.input.priority ?? 0,
          "job.actor.type": p.input.actor.type,
          "job.retried_from": p.input.retriedFromJobId,
        }),
      },
      detached ? ROOT_CONTEXT : context.active(),
    );
    p.data.traceparent = formatTraceparent(span.spanContext());
    return span;
  });
  try {
    const made = await run();
    plans.forEach((p, i) => spans[i]!.setAttribute("job.id", made.get(p)?.id ?? ""));
    return made;
  } catch (e) {
    for (const span of spans) failSpan(span, e);
    throw e;
  } finally {
    for (const span of spans) span.end();
  }
}
