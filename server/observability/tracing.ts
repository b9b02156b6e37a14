import {
  context,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
} from "@opentelemetry/api";

/**
 * The app's and the reference Runtime's spans, on the OpenTelemetry API only (docs/contract.md#deployment-shapes; names and
 * attributes: docs/architecture.md "Traces"). Nothing here needs the SDK: until a process starts
 * tracing (server/observability/tracing-sdk.ts, from OTEL_* settings) the API's tracer is a no-op,
 * and the hot paths ask `tracingOn()` before they do any per-job work at all.
 */
export const TRACER_NAME = "ai-job-runtime";
const ON = Symbol.for("ai-job-runtime.tracing-on");
const g = globalThis as { [ON]?: boolean };

/** Whether this process exports spans (set by startTracing; a global, so every bundled copy sees it). */
export function tracingOn(): boolean {
  return g[ON] === true;
}

export function setTracingOn(on: boolean) {
  g[ON] = on;
}

export const tracer = () => trace.getTracer(TRACER_NAME);

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** A span's context as a W3C `traceparent` (version 00), or null for an invalid (no-op) context. */
export function formatTraceparent(sc: SpanContext | undefined): string | null {
  if (!sc || !trace.isSpanContextValid(sc)) return null;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/** A W3C `traceparent` read back into a remote span context; null when it is not one (version ff, zero ids, junk). */
export function parseTraceparent(value: string | null | undefined): SpanContext | null {
  const m = typeof value === "string" ? TRACEPARENT.exec(value.trim()) : null;
  if (!m || m[1] === "ff" || (m[1] === "00" && m[5])) return null;
  const sc: SpanContext = { traceId: m[2]!, spanId: m[3]!, traceFlags: parseInt(m[4]!, 16) & 1, isRemote: true };
  return trace.isSpanContextValid(sc) ? sc : null;
}

/** The trace id in a `traceparent`, for log lines (null when there is none). */
export function traceIdOf(traceparent: string | null | undefined): string | null {
  return parseTraceparent(traceparent)?.traceId ?? null;
}

/** A context whose parent is the given `traceparent` (the root context when there is none). */
export function contextFrom(traceparent: string | null | undefined): Context {
  const sc = parseTraceparent(traceparent);
  return sc ? trace.setSpanContext(ROOT_CONTEXT, sc) : ROOT_CONTEXT;
}

/** The active span's ids for a log line, or {} when there is no valid one. */
export function logTraceFields(): { traceId?: string; spanId?: string } {
  const sc = trace.getActiveSpan()?.spanContext();
  return sc && trace.isSpanContextValid(sc) ? { traceId: sc.traceId, spanId: sc.spanId } : {};
}

/** " trace_id=<id>" for a plain-text log line written inside a traced request, else "". */
export function traceTag(): string {
  const id = logTraceFields().traceId;
  return id ? ` trace_id=${id}` : "";
}

/** Marks a span failed with the error's message (and records it as an exception event). */
export function failSpan(span: Span, e: unknown) {
  const err = e instanceof Error ? e : new Error(String(e));
  span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err.message.slice(0, 500) });
}

/**
 * Runs fn inside a new active span (child of `parent`, else of the active context), ending it when
 * fn settles; a throw marks it failed. With tracing off this is fn() and nothing else.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  opts: { parent?: Context; links?: Link[]; kind?: SpanOptions["kind"] } = {},
): Promise<T> {
  if (!tracingOn()) return fn(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
  const parent = opts.parent ?? context.active();
  const span = tracer().startSpan(name, { attributes, links: opts.links, kind: opts.kind }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (e) {
    failSpan(span, e);
    throw e;
  } finally {
    span.end();
  }
}

/** Attributes without the unset ones (the API drops undefined values anyway, but null is not a valid value). */
export function defined(attrs: Record<string, string | number | boolean | null | undefined>): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** Runs fn with the given `traceparent` as the active parent (fn as it is with tracing off or no context). */
export function withParent<T>(traceparent: string | null | undefined, fn: () => T): T {
  if (!tracingOn() || !traceparent) return fn();
  return context.with(contextFrom(traceparent), fn);
}
