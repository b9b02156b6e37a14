/**
 * Next's startup hook (Node.js runtime only: the background work needs the database driver).
 * First the configuration: any missing or invalid setting stops the process here, naming each
 * one, before the production server (server/production-server.mjs) opens its port. Then the
 * in-process scheduler in zero-setup mode and the workflow relay (server/background.ts).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { configProblems, setting } = await import("./server/config");
  const problems = configProblems();
  if (problems.length) {
    console.error(`[config] cannot start; fix these settings (docs/operations.md):\n  ${problems.join("\n  ")}`);
    process.exit(78); // EX_CONFIG
  }
  const { lifecycle } = await import("./server/lifecycle");
  lifecycle().graceMs = setting("SHUTDOWN_GRACE_MS");
  const { startBackground } = await import("./server/background");
  startBackground();
}
