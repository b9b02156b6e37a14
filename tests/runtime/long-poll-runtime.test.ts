import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getJobFeed } from "@/server/events/job-feed";
import { createLearner, createTestJob, jobRow, runtimeKey, type Learner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { eventually, startApiServer } from "./api-server";
import { startTestRuntime } from "./harness";

/**
 * The reference Runtime long-polls: idle, it keeps exactly one poll open at a time, each asking the
 * API to hold it (waitMs); a job created while it waits is delivered in the answer to that very
 * poll, not a later one; and shutdown hangs its held poll up at once. A proxy in front of the API
 * sees every poll, its body, its answer and who hung up — no clock decides anything here.
 */
let api: Awaited<ReturnType<typeof startApiServer>>;
let proxy: http.Server;
let proxyUrl: string;
let key: string;
let a: Learner;
type Poll = { body: { waitMs?: number }; answer?: string; clientHungUp: boolean };
const polls: Poll[] = [];
let open = 0;
let maxOpen = 0;

beforeAll(async () => {
  [api, key, a] = await Promise.all([startApiServer(), runtimeKey(), createLearner()]);
  await eventually("LISTEN connection up", async () => getJobFeed().connected, 10_000);
  const agent = new http.Agent({ keepAlive: true });
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const poll: Poll | undefined = req.url?.endsWith("/poll")
        ? { body: JSON.parse(raw.toString() || "{}"), clientHungUp: false }
        : undefined;
      if (poll) {
        polls.push(poll);
        maxOpen = Math.max(maxOpen, ++open);
      }
      let answered = false;
      const up = http.request(`${api.url}${req.url}`, { method: req.method, headers: req.headers, agent }, (r) => {
        const body: Buffer[] = [];
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.on("data", (c: Buffer) => body.push(c));
        r.on("end", () => {
          answered = true;
          if (poll) poll.answer = Buffer.concat(body).toString();
        });
        r.pipe(res);
      });
      // The Runtime's shutdown aborts its held poll: pass the hang-up along, and note it.
      up.on("error", () => res.destroy());
      res.on("close", () => {
        if (poll) {
          open--;
          if (!answered) poll.clientHungUp = true;
        }
        up.destroy();
      });
      up.end(raw);
    });
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

const held = () => polls.findIndex((p) => p.answer === undefined && !p.clientHungUp);

it("an idle Runtime holds one poll open, a new job arrives in that poll's answer, shutdown hangs it up", async () => {
  const rt = startTestRuntime(proxyUrl, key, {
    // The longest hold the API allows: the held poll cannot run out while the test works.
    RUNTIME_WAIT_MS: "20000",
    RUNTIME_CAPABILITIES: "quiz_generation",
    RUNTIME_CONCURRENCY: "1",
  });
  let stopped = false;
  try {
    await eventually("a poll held by the API", async () => held() >= 0, 20_000);
    const waiting = held();
    expect(polls[waiting]!.body.waitMs).toBe(20_000);

    const job = await createTestJob(a, "quiz_generation");
    await eventually("job done", async () => (await jobRow(job.id)).status === "succeeded", 30_000);
    // Taken by the poll that was already waiting when the job was created.
    expect(polls[waiting]!.answer).toContain(job.id);
    expect(polls.filter((p) => p.answer?.includes(job.id))).toHaveLength(1);
    // Never two polls open at once, and every one of them asked to be held.
    expect(maxOpen).toBe(1);
    expect(polls.every((p) => p.body.waitMs === 20_000)).toBe(true);

    // Idle again, it holds its next poll; shutdown hangs that one up instead of waiting it out.
    await eventually("the next poll held", async () => held() > waiting, 20_000);
    const next = held();
    await rt.runtime.shutdown(0);
    stopped = true;
    // Shutdown returned with the poll still unanswered (it did not wait out the hold), and the
    // proxy sees the Runtime hang that poll up.
    expect(polls[next]!.answer).toBeUndefined();
    await eventually("the held poll hung up", async () => polls[next]!.clientHungUp, 10_000);
    expect(polls[next]!.answer).toBeUndefined();
  } finally {
    if (!stopped) await rt.runtime.shutdown(0);
  }
});
