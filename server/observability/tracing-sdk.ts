import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { setTracingOn, tracingOn } from "./tracing";

type Env = Record<string, string | undefined>;
const blank = (v: string | undefined) => v === undefined || v.trim() === "";

/**
 * Whether the standard OTEL_* variables ask for traces: an OTLP endpoint is set
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and neither
 * OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none turns them off. Unset: off.
 */
export function tracesWanted(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return false;
  return !blank(env.OTEL_EXPORTER_OTLP_ENDPOINT) || !blank(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Where spans go: the traces endpoint as given, else the base endpoint + /v1/traces (the OTLP rule). */
export function tracesUrl(env: Env): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  return `${env.OTEL_EXPORTER_OTLP_ENDPOINT!.trim().replace(/\/+$/, "")}/v1/traces`;
}

export type Tracing = { flush: () => Promise<void>; shutdown: () => Promise<void> };

/**
 * Registers the process's tracer provider: spans batched to the OTLP/HTTP endpoint (JSON over
 * HTTP, to tracesUrl(env); headers, timeout, compression, batch sizes and sampler from the
 * standard OTEL_* variables, which the SDK reads itself), W3C trace-context propagation, and an AsyncLocalStorage
 * context manager so a span started in a request is the parent of what that request awaits.
 * `serviceName` is the default of OTEL_SERVICE_NAME; OTEL_RESOURCE_ATTRIBUTES adds to the resource.
 * Returns null (nothing registered, every span a no-op) when the variables do not ask for traces.
 */
export function startTracing(opts: { env: Env; serviceName: string; attributes?: Record<string, string> }) {
  if (!tracesWanted(opts.env) || tracingOn()) return null;
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": opts.serviceName, ...opts.attributes }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(opts.env) }))],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingOn(true);
  const tracing: Tracing = {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      setTracingOn(false);
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
  return tracing;
}
