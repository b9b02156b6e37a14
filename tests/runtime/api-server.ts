import http from "node:http";
import type { AddressInfo } from "node:net";
import { runtimePath, serveRuntimeApi } from "@/server/runtime-api/node-http";

/**
 * The app's real Runtime route handlers behind a real HTTP listener in the test process, so a
 * Runtime can be tested over the network while the test still moves the clock, stops the API
 * (close) and brings it back on the same port (listen again).
 */
export async function startApiServer(port = 0) {
  const server = http.createServer(async (req, res) => {
    const path = runtimePath(req.url ?? "/");
    if (path) return serveRuntimeApi(req, res, path);
    res.writeHead(404).end("{}");
  });
  const sockets = new Set<import("node:net").Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    port: actual,
    url: `http://127.0.0.1:${actual}`,
    /** Stops answering at once: open connections are cut, new ones refused. */
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export { eventually } from "../helpers/eventually";
