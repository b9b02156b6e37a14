import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postText } from "@/runtime/http-post";
import { ApiError, createApiClient } from "@/runtime/api-client";

/** The reference Runtime's HTTP client (node:http, kept-alive connections) against real local servers. */
let servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.map((s) => {
      const closed = new Promise((r) => s.close(r));
      s.closeAllConnections();
      return closed;
    }),
  );
  servers = [];
});

async function serve(handler: http.RequestListener) {
  const server = http.createServer(handler);
  const sockets = new Set<unknown>();
  server.on("connection", (s) => sockets.add(s));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => sockets.size };
}

describe("the Runtime's HTTP client", () => {
  it("posts the body with the bearer key and reads status and text, over one kept-alive connection", async () => {
    const seen: { auth?: string; type?: string; body: string }[] = [];
    const s = await serve((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ auth: req.headers.authorization, type: req.headers["content-type"], body });
        res.statusCode = body.includes("no") ? 409 : 200;
        res.end(JSON.stringify({ echo: body.length, ü: "ünïcödé" }));
      });
    });
    const a = await postText(`${s.url}/x`, "k1", '{"a":"ünï"}', AbortSignal.timeout(5000));
    const b = await postText(`${s.url}/x`, "k1", '{"no":1}', AbortSignal.timeout(5000));
    const c = await postText(`${s.url}/x`, "k1", "{}", AbortSignal.timeout(5000));
    expect(a).toEqual({ status: 200, text: JSON.stringify({ echo: 11, ü: "ünïcödé" }) });
    expect(b.status).toBe(409);
    expect(c.status).toBe(200);
    expect(seen[0]).toEqual({ auth: "Bearer k1", type: "application/json", body: '{"a":"ünï"}' });
    expect(s.connections()).toBe(1);
  });

  it("gives no answer when the server cuts the connection mid-answer, or never answers before the time-out", async () => {
    const cut = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write('{"partial":');
      setImmediate(() => res.socket?.destroy());
    });
    await expect(postText(`${cut.url}/x`, "k", "{}", AbortSignal.timeout(5000))).rejects.toMatchObject({
      code: "ECONNRESET",
    });
    const silent = await serve(() => {}); // holds every request, never answers
    const api = createApiClient({ apiUrl: silent.url, apiKey: "k", instanceId: "i", requestTimeoutMs: 50 });
    const e = await api.heartbeat("job", { attemptNo: 1 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: null, code: "UNREACHABLE", transient: true });
    expect((e as ApiError).message).toMatch(/timeout/i);
    const refused = createApiClient({
      apiUrl: "http://127.0.0.1:1",
      apiKey: "k",
      instanceId: "i",
      requestTimeoutMs: 5000,
    });
    await expect(refused.heartbeat("job", { attemptNo: 1 })).rejects.toMatchObject({
      code: "UNREACHABLE",
      message: "API unreachable: ECONNREFUSED",
    });
  });
});
