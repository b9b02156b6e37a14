import { trace } from "@opentelemetry/api";
import { logTraceFields } from "../server/observability/tracing";

/**
 * Structured logs: one JSON object per line, one line per job event, for any log shipper to read.
 * A line written inside a traced job carries its `traceId` and `spanId`, and is also an event on
 * that span (so a trace shows what the Runtime logged).
 */
export type Logger = (event: string, fields?: Record<string, unknown>, level?: "info" | "warn" | "error") => void;

export function createLogger(
  base: Record<string, unknown>,
  write: (line: string) => void = (l) => process.stdout.write(l + "\n"),
): Logger {
  return (event, fields = {}, level = "info") => {
    const ids = logTraceFields();
    if (ids.spanId) trace.getActiveSpan()?.addEvent(event, spanEventAttributes(level, fields));
    write(JSON.stringify({ time: new Date().toISOString(), level, event, ...ids, ...base, ...fields }));
  };
}

/** A log line's fields as span-event attributes: plain values as they are, the rest as JSON. */
function spanEventAttributes(level: string, fields: Record<string, unknown>) {
  const out: Record<string, string | number | boolean> = { level };
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || v === null) continue;
    out[k] = typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : JSON.stringify(v);
  }
  return out;
}
