import { z } from "zod";
import { loadConfig } from "./config";
import { createRuntime } from "./runtime";
import { startRuntimeTracing } from "./tracing";

/** `npm run runtime`: one reference Runtime process, configured by the environment. */
let config;
try {
  config = loadConfig();
} catch (e) {
  const message = e instanceof z.ZodError ? `\n${z.prettifyError(e)}` : (e as Error).message;
  console.error(`[runtime] configuration error: ${message}`);
  process.exit(2);
}

// Traces when the Runtime's own OTEL_* variables ask for them (runtime/tracing.ts); flushed before exit.
const tracing = startRuntimeTracing(process.env, config.instanceId);
const runtime = createRuntime(config);
let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  if (++signals > 1) process.exit(1); // a second signal: stop now
  runtime.log("runtime.signal", { signal });
  // Never hang past the grace period plus time to report: the leases run out on their own anyway.
  setTimeout(() => process.exit(1), config.shutdownGraceMs + 20_000).unref();
  void runtime
    .shutdown(config.shutdownGraceMs)
    .then(() => tracing?.shutdown())
    .then(() => process.exit(0));
};
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);
// A Runtime keeps running through anything one job does; a stray rejection is logged, not fatal.
process.on("unhandledRejection", (e) =>
  runtime.log("runtime.unhandled_rejection", { message: String((e as Error)?.stack ?? e) }, "error"),
);
