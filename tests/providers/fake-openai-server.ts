import http from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer of the fake server, used in order; the last one repeats. */
export type Reply =
  | { status?: number; content: string; model?: string }
  | { status: number; error: { message: string; type?: string; code?: string } }
  | { hang: true }
  | { reset: true };

export type Recorded = { path: string; authorization: string | undefined; body: Record<string, unknown> };

/**
 * A real HTTP server speaking the OpenAI chat completions protocol (what DeepSeek exposes), so
 * the deepseek provider is tested through the real `openai` client and the real network stack.
 */
export async function startFakeOpenAI(script: Reply[]) {
  const requests: Recorded[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", authorization: req.headers.authorization, body: raw ? JSON.parse(raw) : {} });
      const reply = script[Math.min(requests.length - 1, script.length - 1)]!;
      if ("hang" in reply) return; // never answers: the client's timeout must fire
      if ("reset" in reply) return req.socket.destroy();
      if ("error" in reply) {
        res.writeHead(reply.status, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { type: "invalid_request_error", code: null, ...reply.error } }));
      }
      res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          created: 1_764_460_800,
          model: reply.model ?? String(requests.at(-1)!.body.model ?? "deepseek-chat"),
          choices: [{ index: 0, message: { role: "assistant", content: reply.content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
        }),
      );
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on which nothing listens (connection refused). */
export async function closedPort() {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
