import http from "node:http";
import zlib from "node:zlib";
import type { AddressInfo } from "node:net";

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KeyValue[];
  links?: { traceId: string; spanId: string }[];
  events?: { name: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
};
type ExportRequest = {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
};

export type Value = string | number | boolean | Value[];
export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  service: string;
  resource: Record<string, Value>;
  attributes: Record<string, Value>;
  links: { traceId: string; spanId: string }[];
  events: { name: string; attributes: Record<string, Value> }[];
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  startNs: bigint;
  endNs: bigint;
};

const value = (v: AnyValue): Value =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  v.boolValue ??
  (v.arrayValue?.values ?? []).map(value);
const attrs = (kvs: KeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, value(kv.value)]));

/**
 * A real OTLP/HTTP trace receiver (what a collector answers at POST /v1/traces), started by a test:
 * it takes the JSON encoding the OTLP/HTTP exporter sends (gzip too), answers 200 as a collector
 * does, and keeps every span flat for assertions. Anything it cannot decode is kept in `refused`
 * (and answered 400), so a test can tell "nothing sent" from "sent something else".
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        if (req.method !== "POST" || req.url !== "/v1/traces") throw new Error(`${req.method} ${req.url}`);
        if (!String(req.headers["content-type"]).startsWith("application/json"))
          throw new Error(`content-type ${req.headers["content-type"]}`);
        let body = Buffer.concat(chunks);
        if (req.headers["content-encoding"] === "gzip") body = zlib.gunzipSync(body);
        const parsed = JSON.parse(body.toString("utf8")) as ExportRequest;
        for (const rs of parsed.resourceSpans ?? []) {
          const resource = attrs(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? "",
                name: s.name,
                service: String(resource["service.name"] ?? ""),
                resource,
                attributes: attrs(s.attributes),
                links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
                events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
                statusCode: s.status?.code ?? 0,
                startNs: BigInt(s.startTimeUnixNano),
                endNs: BigInt(s.endTimeUnixNano),
              });
        }
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      } catch (e) {
        refused.push((e as Error).message);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the exporter adds /v1/traces). */
    url,
    spans,
    refused,
    /** Every span of one trace. */
    trace: (traceId: string) => spans.filter((s) => s.traceId === traceId),
    /** Spans of this name whose attribute `job.id` (or the given key) is this id. */
    named: (name: string, id?: string, key = "job.id") =>
      spans.filter((s) => s.name === name && (id === undefined || s.attributes[key] === id)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;

/** The span whose id is `spanId` among `spans`, or undefined. */
export const byId = (spans: ReceivedSpan[], spanId: string) => spans.find((s) => s.spanId === spanId);
