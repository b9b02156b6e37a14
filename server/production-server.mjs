// @ts-check
/**
 * `npm start`: the production server. Plain JavaScript on purpose (nothing is compiled at boot):
 * it serves the built app (`npm run build`) through Next's request handler, except the Runtime
 * protocol (/internal/runtime/jobs/*), which goes through its short door (server/runtime-api/door.ts)
 * before Next's per-request work. The door is the copy Next compiled and loaded (instrumentation.ts
 * publishes it at start), so every module still exists once; until it is published, Next's route
 * handler answers those paths too.
 *
 * What it adds to `next start`: the configuration is checked before Next loads and before the
 * port opens (exit 78 naming every bad setting; instrumentation.ts checks again for `next dev` and
 * plain `next start`), and a graceful shutdown. On SIGTERM/SIGINT: readiness turns 503 and waiting long polls and event streams are
 * answered (lifecycle.beginDrain), the listener closes, in-flight requests get up to
 * SHUTDOWN_GRACE_MS to finish (answers say `connection: close`), then the remaining connections
 * are closed, the app's background work and pool are stopped (lifecycle.stop) and the process exits 0.
 *
 * Usage: node server/production-server.mjs [-p PORT] [-H HOST]   (or PORT / HOSTNAME)
 */
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
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
const dir = path.resolve(import.meta.dirname, "..");

// The whole configuration first, before Next loads and before any port opens: server/config.ts,
// bundled to plain JavaScript by `npm run build` (build:config).
const configModule = path.join(dir, ".next", "app-config.mjs");
if (!fs.existsSync(configModule)) {
  console.error("[server] no production build here: run `npm run build` first");
  process.exit(1);
}
const { configProblems, setting } = await import(pathToFileURL(configModule).href);
const problems = configProblems();
if (problems.length) {
  console.error(`[config] cannot start; fix these settings (docs/operations.md):\n  ${problems.join("\n  ")}`);
  process.exit(78); // EX_CONFIG
}
const graceMs = setting("SHUTDOWN_GRACE_MS");

/** The app's lifecycle object (server/lifecycle.ts), shared through a registered symbol. */
const lifecycle = () => /** @type {any} */ (globalThis)[Symbol.for("ai-job-runtime.lifecycle")];

/** The Runtime protocol's door, published by instrumentation.ts from Next's own bundle; unset until then. */
const runtimeDoor = () =>
  /** @type {((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | undefined} */ (
    /** @type {any} */ (globalThis)[Symbol.for("ai-job-runtime.runtime-door")]
  );

const app = next({ dev: false, dir, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

/** Requests being answered, and every open connection (to know when the last one has gone). */
let inFlight = 0;
const sockets = new Set();
let draining = false;
let cut = 0;
let answeredWhileDraining = 0;

const server = http.createServer((req, res) => {
  inFlight++;
  // Once draining, every answer tells the client to reconnect (to another instance).
  if (draining) res.setHeader("connection", "close");
  // As a reverse proxy would: the socket's address is the one X-Forwarded-For entry no client can
  // forge; per-client sign-in limits read it through TRUSTED_PROXY_HOPS (server/auth/client-ip.ts).
  const xff = req.headers["x-forwarded-for"];
  const before = Array.isArray(xff) ? xff.join(", ") : xff;
  const address = req.socket.remoteAddress;
  if (address) req.headers["x-forwarded-for"] = before ? `${before}, ${address}` : address;
  res.once("close", () => {
    inFlight--;
    // A connection that died during the drain before its answer was complete: counted, so a drain
    // can be checked. (Before the drain, an unfinished answer is a client that went away, e.g. a
    // Runtime stopping while its long poll is held: not the server's doing.)
    if (!draining) return;
    if (!res.writableFinished) cut++;
    else answeredWhileDraining++;
  });
  // The Runtime protocol through its short door when the app published it (server/runtime-api/door.ts):
  // the same dispatch() as the App Router route, without Next's per-request work.
  if (!runtimeDoor()?.(req, res)) void handle(req, res);
});
// Idle keep-alive connections stay open past a load balancer's own idle timeout (60 s on the common
// ones): with Node's 5 s default, a proxy or client that reuses a connection just as the server
// closes it gets a reset (a browser test's request hit exactly that: ECONNRESET on a reused socket).
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.on("connection", (socket) => {
  sockets.add(socket);
  socket.once("close", () => sockets.delete(socket));
});
server.listen(port, hostname, () => console.log(`[server] ready on http://${hostname}:${port}`));

/**
 * Connections accepted just before the listener closed may not have sent their request yet;
 * http.Server#close() would count them idle and reset them. So the listener is closed at the
 * net level only, these get SETTLE_MS to send it, and only then are idle connections closed.
 */
const SETTLE_MS = 1000;
/** Past the grace: the settle, the hooks (5 s each at most, server/lifecycle.ts) and Next's close. */
const HARD_STOP_MS = 30_000;
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

async function shutdown(/** @type {string} */ signal) {
  if (draining) return;
  draining = true;
  console.log(`[server] ${signal}: draining ${inFlight} in-flight request(s), grace ${graceMs} ms`);
  lifecycle()?.beginDrain();
  const deadline = Date.now() + graceMs;
  // Whatever hangs after the grace (a hook waiting on a database that is gone, Next's own close),
  // the process does not outlive it by more than HARD_STOP_MS: an orphan would hold its port.
  setTimeout(() => {
    console.error(`[server] shutdown did not finish within ${graceMs + HARD_STOP_MS} ms; exiting`);
    process.exit(1);
  }, graceMs + HARD_STOP_MS).unref();
  // Stop accepting; leave open connections alone. (A connection still in the kernel's accept
  // queue at this instant is reset by the kernel: the app never saw its request, and a Runtime
  // retries it like a refused one. Behind a load balancer, readiness failing first keeps such
  // connections away.)
  net.Server.prototype.close.call(server);
  await sleep(Math.min(SETTLE_MS, graceMs));
  // Idle keep-alive connections are closed (again and again: a finished answer makes one idle)
  // until every connection has gone or the grace has passed.
  while (sockets.size > 0 && Date.now() < deadline) {
    server.closeIdleConnections();
    await sleep(50);
  }
  if (sockets.size > 0)
    console.log(`[server] grace passed with ${inFlight} request(s) still running; closing their connections`);
  server.closeAllConnections();
  await lifecycle()?.stop();
  await app.close().catch(() => {});
  console.log(`[server] stopped: ${answeredWhileDraining} request(s) answered while draining, ${cut} cut`);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
