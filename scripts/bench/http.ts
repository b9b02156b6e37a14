import http from "node:http";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- protocol answers, read by shape
export type Json = any;

/** POST a JSON body with a Runtime key over a keep-alive agent (fetch would add its own per-call cost to the figures). */
export function postJson(
  agent: http.Agent,
  url: string,
  key: string,
  body: unknown,
): Promise<{ status: number; json: Json }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${key}`,
      "content-length": Buffer.byteLength(data),
    };
    const req = http.request(url, { method: "POST", agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.end(data);
  });
}
