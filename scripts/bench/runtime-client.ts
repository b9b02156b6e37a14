import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { postText } from "../../runtime/http-post";
import { median } from "./stats";
import { output, usage } from "./payload";
import { loadAverage } from "./cpu";

/**
 * `npm run bench:client`: the reference Runtime's CPU per API call with fetch and with node:http
 * (runtime/http-post.ts, its client), alternating in one run. A plain HTTP server
 * in its own process answers every POST with a small JSON (a lease answer's size), so only the
 * client's work is in this process's CPU. CLIENT_CALLS calls per run (4 in flight), CLIENT_REPEATS
 * pairs. Writes bench-results/runtime-client.json and .md.
 */
const CALLS = Number(process.env.CLIENT_CALLS ?? 5000);
const REPEATS = Number(process.env.CLIENT_REPEATS ?? 3);
const body = JSON.stringify({ runtimeInstanceId: "bench", attemptNo: 1, output, usage });
const answer = JSON.stringify({
  status: "succeeded",
  resultId: "5f0c9a52-8d1e-4b8a-9a57-3f1f2b8f4c11",
  idempotent: false,
});

const server = spawn(
  process.execPath,
  [
    "-e",
    `const h=require("node:http");h.createServer((q,s)=>{q.resume();q.on("end",()=>{s.setHeader("content-type","application/json");s.end(${JSON.stringify(answer)})})}).listen(0,"127.0.0.1",function(){console.log(this.address().port)})`,
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const port = await new Promise<number>((r) => server.stdout.once("data", (d) => r(Number(String(d).trim()))));
const url = `http://127.0.0.1:${port}/internal/runtime/jobs/x/result`;

const clients = {
  fetch: async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    return JSON.parse(await res.text()) as unknown;
  },
  "node:http": async () => JSON.parse((await postText(url, "k", body, AbortSignal.timeout(10_000))).text) as unknown,
};

async function run(call: () => Promise<unknown>) {
  let left = CALLS;
  const cpu = process.cpuUsage();
  const t = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (left-- > 0) await call();
    }),
  );
  const used = process.cpuUsage(cpu);
  return { cpuUsPerCall: (used.user + used.system) / CALLS, callsPerSecond: CALLS / ((performance.now() - t) / 1000) };
}

const results: Record<string, { cpuUsPerCall: number[]; callsPerSecond: number[] }> = {};
for (const [name, call] of Object.entries(clients)) {
  results[name] = { cpuUsPerCall: [], callsPerSecond: [] };
  for (let i = 0; i < 300; i++) await call(); // warm-up
}
for (let r = 0; r < REPEATS; r++)
  for (const [name, call] of Object.entries(clients)) {
    const m = await run(call);
    results[name]!.cpuUsPerCall.push(Math.round(m.cpuUsPerCall));
    results[name]!.callsPerSecond.push(Math.round(m.callsPerSecond));
  }
server.kill();
const load = loadAverage();
const rows = Object.entries(results).map(
  ([name, m]) =>
    `| ${name} | ${m.cpuUsPerCall.join(", ")} (median ${median(m.cpuUsPerCall)}) | ${m.callsPerSecond.join(", ")} |`,
);
const ratio = median(results.fetch!.cpuUsPerCall) / median(results["node:http"]!.cpuUsPerCall);
const md = [
  `# The reference Runtime's HTTP client: CPU per call`,
  ``,
  `\`npm run bench:client\`, ${new Date().toISOString()}, load ${load.join(" ")}: ${CALLS} POSTs of a result body (${body.length} bytes) per run, 4 in flight, to a plain node:http server in its own process; the client process's user + system CPU ÷ calls, ${REPEATS} alternating runs each.`,
  ``,
  `| client | CPU µs per call | calls/s |`,
  `|---|---|---|`,
  ...rows,
  ``,
  `fetch costs **${Math.round(ratio * 100) / 100}×** node:http's CPU per call.`,
  ``,
].join("\n");
const dir = path.resolve(import.meta.dirname, "../../bench-results");
fs.writeFileSync(
  path.join(dir, "runtime-client.json"),
  JSON.stringify({ at: new Date().toISOString(), load, calls: CALLS, results }, null, 2),
);
fs.writeFileSync(path.join(dir, "runtime-client.md"), md);
console.log(md);
