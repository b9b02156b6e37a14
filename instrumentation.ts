/**
 * Next's startup hook. With SWEEP_INTERVAL_MS set (npm run dev sets it; so do the system tests,
 * with a short lease), the server sweeps passed leases itself, so jobs of a killed Runtime come
 * back without an Inngest cron. Node.js runtime only: the sweep needs the database driver.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const ms = Number(process.env.SWEEP_INTERVAL_MS ?? 0);
  if (!Number.isFinite(ms) || ms <= 0) return;
  const { startSweepScheduler } = await import("./server/jobs/sweep-scheduler");
  startSweepScheduler(ms);
}
