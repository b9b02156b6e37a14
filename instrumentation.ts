/**
 * Next's startup hook (Node.js runtime only: the background work needs the database driver):
 * the in-process scheduler in zero-setup mode and the workflow relay (server/background.ts).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startBackground } = await import("./server/background");
  startBackground();
}
