import http from "node:http";
import https from "node:https";
import { PROTOCOL_HEADER, RUNTIME_PROTOCOL_VERSION } from "../server/runtime-api/protocol";

/**
 * One POST over a kept-alive connection, answered as status and text. Node's own http client, not
 * fetch: the Runtime makes one request per job, and fetch's per-call work (web streams, Request and
 * Response objects) costs more CPU than the call itself (docs/performance.md, "The reference
 * Runtime's HTTP client"). Rejects on no answer: refused, reset, or `signal` aborted (a time-out).
 */
const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

export function postText(
  url: string,
  bearer: string,
  body: string,
  signal: AbortSignal,
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      target,
      {
        method: "POST",
        agent: agents[target.protocol as keyof typeof agents],
        signal,
        headers: {
          authorization: `Bearer ${bearer}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          // The protocol this Runtime speaks (docs/contract.md#versions-and-the-compatibility-promise).
          [PROTOCOL_HEADER]: RUNTIME_PROTOCOL_VERSION,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
        // Cut off mid-answer (the server went away, or the signal aborted): no answer after all.
        res.on("close", () => {
          if (!res.complete) reject(Object.assign(new Error("connection closed mid-answer"), { code: "ECONNRESET" }));
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
