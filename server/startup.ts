import { configProblems, setting, tracingEnv } from "./config";
import { databaseTopologyProblems } from "./db-topology";
import { lifecycle, onShutdown } from "./lifecycle";
import { startBackground } from "./background";
import { startTracing } from "./observability/tracing-sdk";

/**
 * What an app process does once at start (from instrumentation.ts, Node.js runtime only, before
 * the production server opens its port): check the whole configuration first — any missing or
 * invalid setting stops the process here, naming each one — then where the database URLs lead (a
 * pooler where a session is needed stops it too), then start the background work.
 */
export async function startApp() {
  refuseIf(configProblems());
  refuseIf(await databaseTopologyProblems());
  lifecycle().graceMs = setting("SHUTDOWN_GRACE_MS");
  // OpenTelemetry traces when OTEL_* ask for them; registered before the background work, so its
  // shutdown hook runs last and exports the spans of everything that stops before it.
  const tracing = startTracing({ env: tracingEnv(), serviceName: setting("OTEL_SERVICE_NAME") });
  if (tracing) onShutdown("traces (OTLP export)", tracing.shutdown);
  startBackground();
}

function refuseIf(problems: string[]) {
  if (!problems.length) return;
  console.error(`[config] cannot start; fix these settings (docs/operations.md):\n  ${problems.join("\n  ")}`);
  process.exit(78); // EX_CONFIG
}
