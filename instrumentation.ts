/**
 * Next's startup hook. Node.js runtime only: the configuration check and the background work
 * (server/startup.ts) need Node and the database driver.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startApp } = await import("./server/startup");
  await startApp();
  // The production server's short door for the Runtime protocol (server/runtime-api/door.ts).
  (await import("./server/runtime-api/door")).publishRuntimeDoor();
}
