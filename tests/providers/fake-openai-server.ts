import http from "node:http";
import type { AddressInfo } from "node:net";
import { promptCache } from "./prompt-cache";

/**
 * One scripted answer of the fake server, used in order; the last one repeats. Each is a way a
 * real OpenAI-compatible provider (or a proxy in front of it) has been seen to misbehave.
 */
export type Reply =
  /** A chat completion with this content; `usage` replaces the counted usage (odd usage), `delayMs` answers late. */
  | { status?: number; content: string; model?: string; usage?: unknown; delayMs?: number; padBytes?: number }
  /** An OpenAI-style error body; `headers` e.g. Retry-After. */
  | { status: number; error: { message: string; type?: string; code?: string }; headers?: Record<string, string> }
  /** Any body verbatim (HTML, truncated JSON, `choices: []`); `headers` e.g. Retry-After. */
  | { status?: number; raw: string; contentType?: string; headers?: Record<string, string> }
  /**
   * Headers declaring a body of `declaredBytes` (a proxy's error page, say), the first bytes of it,
   * then the connection is held open ("hold") or closed ("close") with the body unfinished.
   */
  | { status: number; declaredBytes: number; then: "hold" | "close"; headers?: Record<string, string> }
  /** Never answers: no headers. */
  | { hang: true }
  /** Closes the connection before any header. */
  | { reset: true }
  /** Sends headers and the first bytes of a body, then stalls forever. */
  | { stallBody: true }
  /** Sends headers (with the full Content-Length) and half of the body, then resets the connection. */
  | { resetMidBody: true };

export type Recorded = {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
  at: number;
  routed: boolean;
  /** The usage the answer reported (successful completions only). */
  usage?: Record<string, number>;
};

export function completion(content: string, o: { model?: string; usage?: unknown; n?: number } = {}) {
  return {
    id: `chatcmpl-${o.n ?? 1}`,
    object: "chat.completion",
    created: 1_764_460_800,
    model: o.model ?? "deepseek-chat",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: "usage" in o ? o.usage : { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
  };
}

/**
 * A real HTTP server speaking the OpenAI chat completions protocol (what DeepSeek exposes), so
 * the deepseek provider is tested through the real network stack. `script` may be replaced
 * between runs (`fake.script = [...]`); `requests` records every call with its arrival time;
 * `route` answers some requests itself (other jobs that must keep flowing) outside the script.
 */
export async function startFakeOpenAI(
  initial: Reply[],
  opts: { route?: (body: Record<string, unknown>) => Reply | undefined } = {},
) {
  // A new script starts from its first reply (`base`: the scripted requests before it was set).
  const state = { script: initial, base: 0 };
  // Usage as DeepSeek reports it, with the prompt cache's hits (prompt-cache.ts).
  const cache = promptCache();
  const requests: Recorded[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = raw ? JSON.parse(raw) : {};
      // A routed request (say, another job's) gets its own answer and does not move the script on.
      const routed = opts.route?.(body);
      requests.push({
        path: req.url ?? "",
        authorization: req.headers.authorization,
        body,
        at: Date.now(),
        routed: !!routed,
      });
      const n = requests.length;
      const scripted = requests.filter((r) => !r.routed).length;
      const reply = routed ?? state.script[Math.min(scripted - 1 - state.base, state.script.length - 1)]!;
      if ("hang" in reply) return; // never answers: the client's deadline must fire
      if ("reset" in reply) return req.socket.destroy();
      if ("stallBody" in reply) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.write('{"id":"chatcmpl-stall","choices":[');
      }
      if ("resetMidBody" in reply) {
        const body = JSON.stringify(completion('{"weakPoints": []}', { n }));
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.write(body.slice(0, body.length / 2));
        return setTimeout(() => req.socket.destroy(), 20);
      }
      if ("raw" in reply) {
        res.writeHead(reply.status ?? 200, {
          "content-type": reply.contentType ?? "application/json",
          ...reply.headers,
        });
        return res.end(reply.raw);
      }
      if ("declaredBytes" in reply) {
        res.writeHead(reply.status, {
          "content-type": "text/html",
          "content-length": String(reply.declaredBytes),
          ...reply.headers,
        });
        res.write("<!doctype html><html><head><title>503 Service Unavailable</title></head><body>");
        if (reply.then === "close") setTimeout(() => req.socket.destroy(), 20);
        return undefined;
      }
      if ("error" in reply) {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        return res.end(JSON.stringify({ error: { type: "invalid_request_error", code: null, ...reply.error } }));
      }
      const send = () => {
        const model = reply.model ?? String(requests[n - 1]!.body.model ?? "deepseek-chat");
        const content = reply.padBytes ? reply.content + " ".repeat(reply.padBytes) : reply.content;
        const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
        const usage = "usage" in reply ? reply.usage : cache.usage(messages);
        requests[n - 1]!.usage = usage as Record<string, number>;
        res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
        res.end(JSON.stringify(completion(content, { model, usage, n })));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
      return undefined;
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
    get script() {
      return state.script;
    },
    set script(s: Reply[]) {
      state.script = s;
      state.base = requests.filter((r) => !r.routed).length;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A proxy's error page of about `bytes` bytes (HTML, not the provider's JSON error). */
export function errorPage(bytes: number) {
  const head =
    "<!doctype html><html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1>";
  return head + "<p>The upstream is overloaded.</p>".repeat(Math.ceil((bytes - head.length) / 34)) + "</body></html>";
}

/** A port on which nothing listens (connection refused). */
export async function closedPort() {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
