import http from "node:http";
import type { AddressInfo } from "node:net";
import { POST as poll } from "@/app/internal/runtime/jobs/poll/route";
import { POST as lock } from "@/app/internal/runtime/jobs/[jobId]/lock/route";
import { POST as heartbeat } from "@/app/internal/runtime/jobs/[jobId]/heartbeat/route";
import { POST as result } from "@/app/internal/runtime/jobs/[jobId]/result/route";
import { POST as fail } from "@/app/internal/runtime/jobs/[jobId]/fail/route";

const byAction = { lock, heartbeat, result, fail } as const;

/**
 * The app's real Runtime route handlers behind a real HTTP listener in the test process, so a
 * Runtime can be tested over the network while the test still moves the clock, stops the API
 * (close) and brings it back on the same port (listen again).
 */
export async function startApiServer(port = 0) {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://api");
    const request = new Request(url, { method: req.method, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) });
    const m = /^\/internal\/runtime\/jobs\/(?:poll|([^/]+)\/(lock|heartbeat|result|fail))$/.exec(url.pathname);
    let response: Response;
    if (!m || req.method !== "POST") response = new Response("{}", { status: 404 });
    else if (!m[1]) response = await poll(request, { params: Promise.resolve({}) });
    else response = await byAction[m[2] as keyof typeof byAction](request, { params: Promise.resolve({ jobId: decodeURIComponent(m[1]) }) });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
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
