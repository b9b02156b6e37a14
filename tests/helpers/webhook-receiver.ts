import http from "node:http";
import type { AddressInfo } from "node:net";

/** A real HTTP server standing in for the learning platform's webhook endpoint. */
export async function startWebhookReceiver(answer: (n: number) => number = () => 200) {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.statusCode = answer(received.length);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/ai-jobs`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
