import http from "node:http";
import path from "node:path";
import next from "next";
import { runtimePath, serveRuntimeApi } from "../../server/runtime-api/node-http";

/**
 * MEASUREMENT HARNESS ONLY (npm run bench:doors), not a way to run the app: the production
 * server the App Router route replaced, kept so the app CPU per job of its "fast lane" can be compared
 * with the App Router route handler that replaced it (bench-results/doors.md). It loads
 * server/* a second time beside Next's bundle, which is why it was dropped.
 *
 * What it did: requests to /internal/runtime/jobs/* went straight to serveRuntimeApi()
 * (server/runtime-api/node-http.ts), skipping Next's per-request routing; everything else was Next's.
 *
 * Usage: node --import tsx scripts/bench/fast-lane-server.ts [-p PORT] [-H HOST]
 */
const arg = (flag: string) => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const port = Number(arg("-p") ?? process.env.PORT ?? 3000);
const hostname = arg("-H") ?? process.env.HOSTNAME ?? "0.0.0.0";
const FAST_LANE = "/internal/runtime/jobs/";

const app = next({ dev: false, dir: path.resolve(import.meta.dirname, "../.."), hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  const fast = req.url?.startsWith(FAST_LANE) ? runtimePath(req.url) : null;
  if (fast) serveRuntimeApi(req, res, fast).catch((e) => console.error("[serve] runtime request failed:", e));
  else void handle(req, res);
});
server.listen(port, hostname, () => console.log(`[serve] ready on http://${hostname}:${port}`));

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5_000).unref();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
