import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getJobFeed } from "@/server/events/job-feed";
import { createLearner, createTestJob, jobRow, runtimeKey, type Learner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { eventually, startApiServer } from "./api-server";
import { startTestRuntime } from "./harness";

/**
 * The reference Runtime long-polls: idle, it makes one poll request per waitMs (counted by a
 * proxy in front of the API), a job created while it waits is picked up without waiting for a
 * poll interval, and shutdown ends its held poll at once.
 */
let api: Awaited<ReturnType<typeof startApiServer>>;
let proxy: http.Server;
let proxyUrl: string;
let key: string;
let a: Learner;
const polls: number[] = [];

beforeAll(async () => {
  [api, key, a] = await Promise.all([startApiServer(), runtimeKey(), createLearner()]);
  await eventually("LISTEN connection up", async () => getJobFeed().connected, 10_000);
  const agent = new http.Agent({ keepAlive: true });
  proxy = http.createServer((req, res) => {
    if (req.url?.endsWith("/poll")) polls.push(Date.now());
    const up = http.request(`${api.url}${req.url}`, { method: req.method, headers: req.headers, agent }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    // The Runtime's shutdown aborts its held poll: pass the hang-up along.
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await releaseJobsOf([a]);
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await api.close();
});

it("an idle Runtime makes one request per waitMs and picks a new job up at once", async () => {
  const rt = startTestRuntime(proxyUrl, key, {
    RUNTIME_WAIT_MS: "1500",
    RUNTIME_CAPABILITIES: "quiz_generation",
    RUNTIME_CONCURRENCY: "1",
  });
  try {
    await eventually("first poll", async () => polls.length >= 1, 10_000);
    const idleFrom = Date.now();
    const before = polls.length;
    await new Promise((r) => setTimeout(r, 3200));
    const idleMs = Date.now() - idleFrom;
    // Without long poll (poll interval 50 ms) this would be ~60 requests.
    expect(polls.length - before).toBeLessThanOrEqual(Math.ceil(idleMs / 1500) + 1);

    const job = await createTestJob(a, "quiz_generation");
    const pollsBefore = polls.length;
    await eventually("job done", async () => (await jobRow(job.id)).status === "succeeded", 20_000);
    // Taken by the poll that was already waiting (plus at most the next one after it).
    expect(polls.length - pollsBefore).toBeLessThanOrEqual(1);
  } finally {
    const t = Date.now();
    await rt.runtime.shutdown(0);
    expect(Date.now() - t).toBeLessThan(400);
  }
});
