import type { Span } from "@opentelemetry/api";
import type { StageRunner } from "../pipeline/stage-runner";
import type { Provider } from "../providers/types";
import { estimateCost } from "../jobs/prices";
import { costConfig } from "../config";
import { defined, inSpan, tracingOn } from "./tracing";

/**
 * The pipeline's spans, in whichever process runs it (the reference Runtime, the in-app worker):
 * one per stage run, `pipeline.prompt_builder` … `pipeline.format_adapter`, each with the quality
 * loop it belongs to (`pipeline.loop`: 1, then 2.. after a failed quality check), and one
 * `model.call` per model call inside `pipeline.model_inference`. Their parent is the active span:
 * the Runtime's `runtime.job`, or the worker's lock span. Each span wraps the stage's own work, so a
 * durable step that Inngest replays from memory records nothing twice.
 */
export function tracedStages(run: StageRunner, loop: { n: number }): StageRunner {
  if (!tracingOn()) return run;
  return (id, fn) =>
    run(id, () =>
      inSpan(`pipeline.${id.replace(/-/g, "_")}`, { "pipeline.stage": id, "pipeline.loop": loop.n }, async (span) => {
        const value = await fn();
        if (id === "quality-check") describeCheck(span, value);
        return value;
      }),
    );
}

function describeCheck(span: Span, value: unknown) {
  const v = value as { accepted?: boolean; findings?: unknown[] } | null;
  if (!v || typeof v !== "object") return;
  span.setAttributes(
    defined({
      "quality.accepted": v.accepted,
      "quality.findings": Array.isArray(v.findings) ? v.findings.length : null,
    }),
  );
}

/** The provider with a `model.call` span around each call: provider, model, tokens and their estimated cost. */
export function tracedProvider(provider: Provider): Provider {
  if (!tracingOn()) return provider;
  return {
    name: provider.name,
    infer: (req) =>
      inSpan(
        "model.call",
        { "gen_ai.operation.name": "chat", "gen_ai.provider.name": provider.name, "model.attempt": req.attempt },
        async (span) => {
          const r = await provider.infer(req);
          const input = r.usage?.promptTokens ?? 0;
          const output = r.usage?.completionTokens ?? 0;
          span.setAttributes(
            defined({
              "gen_ai.provider.name": r.provider,
              "gen_ai.response.model": r.model,
              "gen_ai.usage.input_tokens": input,
              "gen_ai.usage.output_tokens": output,
              "model.cost.estimate": estimateCost(input, output),
              "model.cost.currency": costConfig.currency,
              "model.output.parse_error": r.parseError ? true : null,
            }),
          );
          return r;
        },
      ),
  };
}
