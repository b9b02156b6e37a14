import { afterAll, beforeAll, expect, it } from "vitest";
import { getJobWaiters } from "@/server/events/job-waiters";
import { getJobFeed } from "@/server/events/job-feed";
import { lifecycle } from "@/server/lifecycle";
import { runtimeKey, uid } from "../helpers/factories";
import { eventually, startApiServer } from "../runtime/api-server";

/**
 * SIGTERM's drain (server/lifecycle.ts) reaches the long polls: the waiters held when the process
 * starts draining are answered at once with no jobs, and a poll that arrives while draining is not
 * held. This file drains its own process for good, so it lives apart from the other long-poll tests.
 */
let api: Awaited<ReturnType<typeof startApiServer>>;
let key: string;

beforeAll(async () => {
  [api, key] = await Promise.all([startApiServer(), runtimeKey()]);
  await eventually("LISTEN connection up", async () => getJobFeed().connected, 10_000);
});
afterAll(async () => {
  await api.close();
});

const poll = () =>
  fetch(`${api.url}/internal/runtime/jobs/poll`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      runtimeInstanceId: uid("drain"),
      capabilities: ["weak_point_analysis"],
      claim: true,
      waitMs: 15_000,
    }),
  }).then(async (res) => ({ status: res.status, body: await res.json(), at: Date.now() }));

it("beginning the drain answers every held long poll with no jobs, and holds no new one", async () => {
  const held = [poll(), poll(), poll()];
  await eventually("three polls held", async () => getJobWaiters().size >= 3, 10_000);
  const drainedAt = Date.now();
  lifecycle().beginDrain();
  for (const res of await Promise.all(held)) {
    expect(res.status).toBe(200);
    expect(res.body.jobs).toEqual([]);
    expect(res.at - drainedAt).toBeLessThan(5_000);
  }
  expect(getJobWaiters().size).toBe(0);
  const late = Date.now();
  const res = await poll();
  expect(res.body.jobs).toEqual([]);
  expect(res.at - late).toBeLessThan(5_000);
});
