// @ts-check
/**
 * `npm start`: the production server. Plain JavaScript on purpose (nothing is compiled at boot):
 * it serves the built app (`npm run build`) through Next's request handler and nothing else —
 * every route, the Runtime protocol included, is Next's, so every module exists once.
 *
 * What it adds to `next start`: the configuration is checked before the port opens (Next runs
 * instrumentation.ts in prepare(), which exits naming every bad setting), and a graceful
 * shutdown. On SIGTERM/SIGINT: readiness turns 503 and waiting long polls and event streams are
 * answered (lifecycle.beginDrain), the listener closes, in-flight requests get up to
 * SHUTDOWN_GRACE_MS to finish (answers say `connection: close`), then the remaining connections
 * are closed, the app's background work and pool are stopped (lifecycle.stop) and the process exits 0.
 *
 * Usage: node server/production-server.mjs [-p PORT] [-H HOST]   (or PORT / HOSTNAME)
 */
import http from "node:http";
import path from "node:path";
import next from "next";

const arg = (/** @type {string} */ flag) => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : undefined;
};
// Tooling, like `next start` itself: where to listen is the launcher's business, not the app's config.
const port = Number(arg("-p") ?? process.env.PORT ?? 3000);
const hostname = arg("-H") ?? process.env.HOSTNAME ?? "0.0.0.0";
// This server only ever serves a production build; the config module keys production on it.
Object.assign(process.env, { NODE_ENV: "production" });

/** The app's lifecycle object (server/lifecycle.ts), shared through a registered symbol. */
const lifecycle = () => /** @type {any} */ (globalThis)[Symbol.for("ai-job-runtime.lifecycle")];

const app = next({ dev: false, dir: path.resolve(import.meta.dirname, ".."), hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

let inFlight = 0;
let draining = false;
/** @type {(() => void) | null} */
let onIdle = null;

const server = http.createServer((req, res) => {
  inFlight++;
  // Tell keep-alive clients to reconnect elsewhere once this instance is going away.
  if (draining) res.setHeader("connection", "close");
  res.once("close", () => {
    if (--inFlight === 0) onIdle?.();
  });
  void handle(req, res);
});
server.listen(port, hostname, () => console.log(`[server] ready on http://${hostname}:${port}`));

async function shutdown(/** @type {string} */ signal) {
  if (draining) return;
  draining = true;
  const graceMs = lifecycle()?.graceMs ?? 25_000;
  console.log(`[server] ${signal}: draining ${inFlight} in-flight request(s), grace ${graceMs} ms`);
  lifecycle()?.beginDrain();
  server.close();
  server.closeIdleConnections();
  const finished = await new Promise((resolve) => {
    if (inFlight === 0) return resolve(true);
    onIdle = () => resolve(true);
    setTimeout(() => resolve(false), graceMs).unref();
  });
  if (!finished) console.log(`[server] grace passed with ${inFlight} request(s) still running; closing their connections`);
  server.closeAllConnections();
  await lifecycle()?.stop();
  await app.close().catch(() => {});
  console.log("[server] stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
