import { describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually";
import { createLearner, createTestJob } from "../helpers/factories";
import { GET } from "@/app/api/jobs/events/route";
import { getJobFeed } from "@/server/events/job-feed";
import { jobEventStream } from "@/server/events/sse";

async function readUntil(stream: ReadableStream<Uint8Array>, done: (text: string) => boolean, ms = 10_000) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + ms;
  while (!done(text)) {
    const next = await Promise.race([
      reader.read(),
      new Promise<null>((r) => setTimeout(() => r(null), Math.max(1, deadline - Date.now()))),
    ]);
    if (!next || next.done) break;
    text += decoder.decode(next.value);
  }
  await reader.cancel();
  return text;
}

describe("live job changes over Server-Sent Events", () => {
  it("a learner's stream carries their own jobs' changes and nobody else's", async () => {
    const a = await createLearner();
    const b = await createLearner();
    const feed = getJobFeed();
    await eventually("the job feed listening", async () => feed.connected);
    const abort = new AbortController();
    const stream = jobEventStream(feed, (c) => c.userId === a.user.id, abort.signal);
    const reading = readUntil(stream, (t) => (t.match(/event: job/g) ?? []).length >= 1);
    const other = await createTestJob(b);
    const mine = await createTestJob(a);
    const text = await reading;
    abort.abort();
    expect(text).toMatch(/^retry: 3000\nevent: ready\ndata: \{"live":true\}/);
    expect(text).toContain(mine.id);
    expect(text).not.toContain(other.id);
    const data = JSON.parse(text.split("event: job\ndata: ")[1]!.split("\n")[0]!);
    expect(data).toMatchObject({ id: mine.id, status: "pending", userId: a.user.id });
  });

  it("the endpoint refuses anonymous viewers", async () => {
    const res = await GET(new Request("http://localhost:3000/api/jobs/events"));
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("UNAUTHORIZED");
  });
});
