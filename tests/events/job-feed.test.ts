import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { JobFeed, type JobChange } from "@/server/events/job-feed";
import { startWorkflowRelay } from "@/server/events/workflow-relay";
import { getDb } from "@/server/db";
import { Prisma } from "@/server/generated/prisma/client";
import { cancelPending } from "@/server/jobs/cancel";

function collect(feed: JobFeed) {
  const changes: JobChange[] = [];
  feed.on("change", (c: JobChange) => changes.push(c));
  return changes;
}

async function until<T>(fn: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the job feed (LISTEN/NOTIFY)", () => {
  let feed: JobFeed;
  beforeAll(async () => {
    feed = new JobFeed(process.env.DATABASE_URL!).start();
    await until(() => feed.connected || undefined);
  });
  afterAll(() => feed.stop());

  it("pushes creation, lock, progress and finish of a job to listeners", async () => {
    const changes = collect(feed);
    const learner = await createLearner();
    const job = await createTestJob(learner);
    const rt = runtime(await runtimeKey(), uid("rt"));
    await rt.lock(job.id);
    await rt.heartbeat(job.id, 1, { stage: "quality_check", progress: 70 });
    await rt.fail(job.id, 1, "INVALID_SNAPSHOT");
    const mine = await until(() => {
      const m = changes.filter((c) => c.id === job.id);
      return m.length >= 4 ? m : undefined;
    });
    expect(mine.map((c) => [c.status, c.progress, c.stage])).toEqual([
      ["pending", 0, null],
      ["locked", 0, null],
      ["running", 70, "quality_check"],
      ["failed", 70, "quality_check"],
    ]);
    expect(mine[0]!.created).toBe(true);
  });

  it("delivers nothing for a transaction that rolls back, and delivers on commit only", async () => {
    const changes = collect(feed);
    const learner = await createLearner();
    const job = await createTestJob(learner);
    await until(() => changes.find((c) => c.id === job.id));
    await getDb()
      .$transaction(async (tx) => {
        await cancelPending(tx, Prisma.sql`j.id = ${job.id}`, { type: "admin", id: "a" });
        throw new Error("roll back");
      })
      .catch(() => {});
    expect((await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: job.id } })).status).toBe("pending");
    // Then the same change, committed: notifications arrive in commit order on the one listening
    // connection, so once this one is here, a notification of the rolled-back one would be too.
    await getDb().$transaction((tx) => cancelPending(tx, Prisma.sql`j.id = ${job.id}`, { type: "admin", id: "a" }));
    await until(() => changes.find((c) => c.id === job.id && c.status === "cancelled"));
    expect(changes.filter((c) => c.id === job.id && c.status === "cancelled")).toHaveLength(1);
  });

  it("zero-setup relay: a finished job's webhook is delivered in-process, after commit", async () => {
    const receiver = await startWebhookReceiver();
    process.env.JOB_WEBHOOK_URL = receiver.url;
    process.env.JOB_WEBHOOK_SECRET = "whsec_relay";
    const stop = startWorkflowRelay(feed);
    try {
      const learner = await createLearner();
      const job = await createTestJob(learner);
      const rt = runtime(await runtimeKey(), uid("rt"));
      await rt.lock(job.id);
      await rt.fail(job.id, 1, "INVALID_CREDENTIAL");
      const hit = await until(() => receiver.received.find((r) => r.body.includes(job.id)));
      expect(JSON.parse(hit.body).job).toMatchObject({ id: job.id, status: "failed", errorCode: "INVALID_CREDENTIAL" });
    } finally {
      stop();
      delete process.env.JOB_WEBHOOK_URL;
      delete process.env.JOB_WEBHOOK_SECRET;
      await receiver.close();
    }
  });

  it("reconnects after its connection is killed; only its own connection is touched", async () => {
    // LISTEN backends of this file's own database (each test file has one), ours excluded.
    const listenerPids = async () =>
      (
        await getDb().$queryRaw<{ pid: number }[]>`
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN ai_job_events%' AND pid <> pg_backend_pid()`
      ).map((r) => r.pid);
    const before = await listenerPids();
    expect(before.length).toBeGreaterThanOrEqual(1); // the describe's feed, which must survive
    const own = new JobFeed(process.env.DATABASE_URL!).start();
    let otherGaps = 0;
    feed.on("gap", () => otherGaps++);
    try {
      await until(() => own.connected || undefined);
      const mine = (await listenerPids()).filter((p) => !before.includes(p));
      expect(mine).toHaveLength(1);
      const disconnected = new Promise((r) => own.once("disconnected", r));
      const reconnected = new Promise((r) => own.once("connected", r));
      await getDb().$executeRaw`SELECT pg_terminate_backend(${mine[0]!}::int)`;
      await within(disconnected, 10_000, "the feed never saw its connection end");
      await within(reconnected, 15_000, "the feed never reconnected");
      const again = (await listenerPids()).filter((p) => !before.includes(p));
      expect(again).toHaveLength(1);
      expect(again[0]).not.toBe(mine[0]);
      const changes = collect(own);
      const learner = await createLearner();
      const job = await createTestJob(learner);
      await until(() => changes.find((c) => c.id === job.id));
      // The other feed of this file kept its connection.
      expect(feed.connected).toBe(true);
      expect(otherGaps).toBe(0);
      expect((await listenerPids()).filter((p) => before.includes(p)).sort()).toEqual([...before].sort());
    } finally {
      await own.stop();
    }
  });
});

function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("the workflow relay when Inngest is unreachable", () => {
  it("a failed send is logged and neither loses nor holds up the state change", async () => {
    const { closedPort } = await import("../providers/fake-openai-server");
    const saved = { dev: process.env.INNGEST_DEV, base: process.env.INNGEST_BASE_URL };
    process.env.INNGEST_DEV = "1";
    process.env.INNGEST_BASE_URL = `http://127.0.0.1:${await closedPort()}`;
    const feed = new JobFeed(process.env.DATABASE_URL!).start();
    const logged: string[] = [];
    const stop = startWorkflowRelay(feed, (m) => logged.push(m));
    try {
      await until(() => feed.connected || undefined);
      const learner = await createLearner();
      const job = await createTestJob(learner); // creation is relayed as ai/job.created
      const rt = runtime(await runtimeKey(), uid("rt"));
      expect((await rt.lock(job.id)).status).toBe(200);
      const failed = await rt.fail(job.id, 1, "INVALID_SNAPSHOT"); // relayed as ai/job.finished
      expect(failed.body.status).toBe("failed");
      expect((await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: job.id } })).status).toBe("failed");
      await until(() => (logged.some((m) => m.includes(job.id) && m.includes("failed")) ? true : undefined), 20_000);
      expect(logged.some((m) => m.includes(job.id) && m.includes("pending"))).toBe(true);
    } finally {
      stop();
      await feed.stop();
      if (saved.dev === undefined) delete process.env.INNGEST_DEV;
      else process.env.INNGEST_DEV = saved.dev;
      if (saved.base === undefined) delete process.env.INNGEST_BASE_URL;
      else process.env.INNGEST_BASE_URL = saved.base;
    }
  });
});
