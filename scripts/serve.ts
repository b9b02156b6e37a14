import http from "node:http";
import path from "node:path";
import next from "next";
import { runtimePath, serveRuntimeApi } from "../server/runtime-api/node-http";
import { appendForwardedFor } from "../server/auth/client-ip";
import { API_CONTENT_SECURITY_POLICY, COMMON_SECURITY_HEADERS } from "../server/security/headers";

/**
 * The production server: `next start` plus a fast lane for the Runtime protocol. Requests to
 * /internal/runtime/jobs/* go straight to the same serveRuntimeApi() that the Pages API route
 * (pages/api/internal/runtime/jobs/[...path].ts) calls, without Next's per-request routing work,
 * which was more than half of the app's CPU per job (bench-results/latest.md); everything else is
 * Next's. `next dev` and a plain `next start` serve the protocol through that route instead.
 *
 * Usage: node --import tsx scripts/serve.ts [-p PORT] [-H HOST]   (PORT / HOSTNAME also work)
 */
const arg = (flag: string) => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const port = Number(arg("-p") ?? process.env.PORT ?? 3000);
const hostname = arg("-H") ?? process.env.HOSTNAME ?? "0.0.0.0";
const FAST_LANE = "/internal/runtime/jobs/";

const app = next({ dev: false, dir: path.resolve(import.meta.dirname, ".."), hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  const fast = req.url?.startsWith(FAST_LANE) ? runtimePath(req.url) : null;
  if (fast) {
    // Next's headers() (next.config.js) never sees this lane: the same security headers here.
    for (const [name, value] of Object.entries(COMMON_SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader("content-security-policy", API_CONTENT_SECURITY_POLICY);
    serveRuntimeApi(req, res, fast).catch((e) => console.error("[serve] runtime request failed:", e));
  } else {
    // As a reverse proxy would: the socket's address is the one X-Forwarded-For entry no client
    // can forge; per-client sign-in limits read it through TRUSTED_PROXY_HOPS (server/auth/client-ip.ts).
    req.headers["x-forwarded-for"] = appendForwardedFor(req.headers["x-forwarded-for"], req.socket.remoteAddress);
    void handle(req, res);
  }
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
