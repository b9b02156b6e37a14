import { configProblems, setting } from "./config";
import { databaseTopologyProblems } from "./db-topology";
import { lifecycle } from "./lifecycle";
import { startBackground } from "./background";

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
  startBackground();
}

function refuseIf(problems: string[]) {
  if (!problems.length) return;
  console.error(`[config] cannot start; fix these settings (docs/operations.md):\n  ${problems.join("\n  ")}`);
  process.exit(78); // EX_CONFIG
}
