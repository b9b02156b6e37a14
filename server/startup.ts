import { configProblems, setting } from "./config";
import { lifecycle } from "./lifecycle";
import { startBackground } from "./background";

/**
 * What an app process does once at start (from instrumentation.ts, Node.js runtime only): check
 * the whole configuration first — any missing or invalid setting stops the process here, naming
 * each one, before the production server opens its port — then start the background work.
 */
export function startApp() {
  const problems = configProblems();
  if (problems.length) {
    console.error(`[config] cannot start; fix these settings (docs/operations.md):\n  ${problems.join("\n  ")}`);
    process.exit(78); // EX_CONFIG
  }
  lifecycle().graceMs = setting("SHUTDOWN_GRACE_MS");
  startBackground();
}
