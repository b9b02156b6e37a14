import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../../scripts/lib/app-server";
import { getDb } from "@/server/db";
import { cancelJob } from "@/server/jobs/cancel";
import { lockKey } from "@/server/scheduler/in-process";
import { createLearner, createTestJob, jobRow, runtimeKey, type Learner } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { spawnRuntime, type RuntimeProcess } from "./runtime-process";
import { countStatus, createJobs, expectSucceededOnce } from "./jobs";

let app: AppServer;
let key: string;
let runtimes: RuntimeProcess[] = [];

beforeAll(async () => {
  // A 3 s lease and a sweep every 0.5 s, so lost Runtimes' jobs come back in seconds, not minutes.
  app = await startAppServer({
    databaseUrl: process.env.DATABASE_URL!,
    env: {
      JOB_LEASE_SECONDS: "3",
      SWEEP_INTERVAL_MS: "500",
      JOB_BACKOFF_BASE_MS: "200",
      JOB_BACKOFF_CAP_MS: "1000",
      RUNTIME_POLL_INTERVAL_MS: "200",
    },
  });
  key = await runtimeKey();
});
afterEach(async () => {
  await Promise.all(runtimes.map((r) => r.kill("SIGKILL")));
  runtimes = [];
});
afterAll(async () => {
  await app?.stop();
});

function runtime(env: Record<string, string> = {}) {
  const r = spawnRuntime({ apiUrl: app.url, apiKey: key, env });
  runtimes.push(r);
  return r;
}

describe("[SYSTEM] Runtime failures on the real app", () => {
  // Which of the sweep and a claim ends a passed lease first is a race; each test below holds the
  // other one off with a real control, so the path it asserts is the only one possible.
  it("SIGKILL one Runtime mid-job: the sweep returns its jobs when the lease ends, and another Runtime finishes them", async () => {
    const { learners, ids, doomed } = await killMidJob();
    // No other Runtime exists yet, so only the sweep can end these leases.
    await eventually("the sweep put all 4 back in the queue", async () => (await countStatus(ids, "pending")) === 4);
    const rescuer = runtime();
    await expectRescued(ids, learners, doomed, rescuer, "sweep");
  });

  it("SIGKILL one Runtime mid-job, the sweep held off: the next claim takes the passed leases over", async () => {
    // The in-process scheduler runs the sweep under this advisory lock and skips its tick while
    // another session holds it (server/scheduler/in-process.ts).
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      // Waits out a tick in progress, then holds the lock until the end of the test.
      await holder.query("SELECT pg_advisory_lock($1::bigint)", [lockKey("sweep-leases")]);
      const { learners, ids, doomed } = await killMidJob();
      const rescuer = runtime();
      await expectRescued(ids, learners, doomed, rescuer, "claim");
    } finally {
      await holder.end();
    }
  });

  it("cancel while running: the Runtime stops the job, acknowledges, and the job ends cancelled", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "quiz_generation");
    const rt = runtime({ RUNTIME_LOCAL_DELAY_MS: "600000", RUNTIME_HEARTBEAT_MS: "500" });
    await eventually("job in model_inference", async () => (await jobRow(job.id)).stage === "model_inference");
    await cancelJob(job.id, { type: "learner", id: learner.user.id }, { ownerId: learner.user.id });

    const row = await eventually("job cancelled", async () => {
      const r = await jobRow(job.id);
      return r.status === "cancelled" ? r : null;
    });
    expect(row.result).toBeNull();
    expect(row.events.at(-1)).toMatchObject({
      fromStatus: "running",
      toStatus: "cancelled",
      actorType: "runtime",
      actorId: rt.instanceId,
      errorCode: "CANCELLED",
    });
    await eventually("Runtime logged the cancel", async () =>
      rt.events.find((e) => e.event === "job.cancelled" && e.jobId === job.id),
    );

    // It stopped that job only: the process lives on and takes the next one.
    expect(rt.alive()).toBe(true);
    const exit = await rt.kill("SIGTERM");
    expect(exit.code).toBe(0);
  });

  it("SIGTERM mid-job: the Runtime stops claiming, hands the job back as RUNTIME_SHUTDOWN after the grace period, and exits 0", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "learning_state_analysis");
    const leaving = runtime({ RUNTIME_LOCAL_DELAY_MS: "600000", RUNTIME_SHUTDOWN_GRACE_MS: "300" });
    await eventually("job running", async () => (await jobRow(job.id)).status === "running");
    const exit = await leaving.kill("SIGTERM");
    expect(exit.code).toBe(0);
    const handedBack = await jobRow(job.id);
    expect(handedBack.events.at(-1)).toMatchObject({
      fromStatus: "running",
      toStatus: "pending",
      errorCode: "RUNTIME_SHUTDOWN",
      actorId: leaving.instanceId,
    });
    expect(leaving.events.find((e) => e.event === "runtime.stopped")).toMatchObject({ handedBack: 1 });

    const next = runtime();
    await eventually("job succeeded on the next Runtime", async () => (await jobRow(job.id)).status === "succeeded");
    expect((await jobRow(job.id)).events.at(-1)).toMatchObject({ toStatus: "succeeded", actorId: next.instanceId });
  });

  it("the API down for a while: the Runtime backs off, resumes, and every job still succeeds once", async () => {
    const learners = [await createLearner(), await createLearner()];
    const ids = await createJobs(learners, 8);
    const rt = runtime({ RUNTIME_LOCAL_DELAY_MS: "1500", RUNTIME_CONCURRENCY: "2" });
    await eventually("some jobs running", async () => (await countStatus(ids, "running")) > 0);

    await app.stop("SIGKILL");
    const noticed = () => rt.count("api.poll_failed") + rt.count("api.retry") + rt.count("job.heartbeat_failed");
    await eventually("the Runtime failing to reach the API a few times", async () => noticed() >= 4, 60_000);
    expect(rt.alive()).toBe(true);
    await app.start();

    await eventually("all 8 succeeded", async () => (await countStatus(ids, "succeeded")) === 8);
    const { problems } = await expectSucceededOnce(ids);
    expect(problems).toEqual([]);
    expect(rt.alive()).toBe(true);
    expect(rt.events.filter((e) => e.event === "job.succeeded").length).toBeGreaterThanOrEqual(1);
  });
});

/** Four jobs running on a Runtime stuck in model inference, which is then SIGKILLed. */
async function killMidJob() {
  const learners = [await createLearner(), await createLearner()];
  const ids = await createJobs(learners, 4);
  const doomed = runtime({ RUNTIME_LOCAL_DELAY_MS: "600000" });
  await eventually("all 4 running on the doomed Runtime", async () => {
    const rows = await getDb().aiRuntimeJob.findMany({
      where: { id: { in: ids }, status: "running", lockedBy: doomed.instanceId },
    });
    return rows.length === 4;
  });
  const exit = await doomed.kill("SIGKILL");
  expect(exit.signal).toBe("SIGKILL");
  return { learners, ids, doomed };
}

/** Every job succeeded once on the rescuer, its lease ended by `endedBy` (JOB_TIMEOUT, one retry). */
async function expectRescued(
  ids: string[],
  learners: Learner[],
  doomed: RuntimeProcess,
  rescuer: RuntimeProcess,
  endedBy: "sweep" | "claim",
) {
  await eventually("all 4 succeeded", async () => (await countStatus(ids, "succeeded")) === 4);
  const { problems } = await expectSucceededOnce(ids);
  expect(problems).toEqual([]);
  for (const id of ids) {
    const row = await jobRow(id);
    expect(row).toMatchObject({ attemptNo: 2, retryCount: 1 });
    const path = row.events.map((e) => [e.fromStatus, e.toStatus, e.actorType, e.actorId]);
    expect(path).toEqual([
      [null, "pending", "learner", learners[ids.indexOf(id) % 2]!.user.id],
      ["pending", "locked", "runtime", doomed.instanceId],
      ["locked", "running", "runtime", doomed.instanceId],
      ["running", "expired", "system", endedBy],
      ["expired", "pending", "system", endedBy],
      ["pending", "locked", "runtime", rescuer.instanceId],
      ["locked", "running", "runtime", rescuer.instanceId],
      ["running", "succeeded", "runtime", rescuer.instanceId],
    ]);
    expect(row.events[3]!.errorCode).toBe("JOB_TIMEOUT");
  }
}
