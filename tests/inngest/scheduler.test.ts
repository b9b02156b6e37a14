import { afterEach, describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { advanceClock, resetClock } from "@/server/clock";
import { InProcessScheduler, type TaskRun } from "@/server/scheduler/in-process";
import { defaultTasks } from "@/server/scheduler/tasks";

afterEach(() => resetClock());

describe("the in-process scheduler (zero-setup mode)", () => {
  it("runs the same sweep as the Inngest cron: an abandoned job comes back", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner);
    await runtime(await runtimeKey(), uid("rt")).lock(job.id);
    advanceClock(2 * 60_000);
    const scheduler = new InProcessScheduler(process.env.DATABASE_URL!, defaultTasks());
    const sweep = defaultTasks().find((t) => t.id === "sweep-leases")!;
    const run = await scheduler.tick(sweep);
    expect(run).toMatchObject({ task: "sweep-leases", ran: true });
    expect((run.result as { expired: number }).expired).toBeGreaterThanOrEqual(1);
    expect((await jobRow(job.id)).status).toBe("pending");
  });

  it("two schedulers (two app processes) never run the same task at the same time", async () => {
    let running = 0;
    let maxConcurrent = 0;
    let runs = 0;
    // The task holds until the test lets it go: every other tick meets it running, on any machine.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = {
      id: uid("slow-task"),
      everyMs: 60_000,
      run: async () => {
        running++;
        runs++;
        maxConcurrent = Math.max(maxConcurrent, running);
        await gate;
        running--;
      },
    };
    const seen: TaskRun[] = [];
    const a = new InProcessScheduler(process.env.DATABASE_URL!, [slow], (r) => seen.push(r));
    const b = new InProcessScheduler(process.env.DATABASE_URL!, [slow], (r) => seen.push(r));
    let refused = 0;
    let allRefused!: () => void;
    const threeRefused = new Promise<void>((r) => (allRefused = r));
    const ticks = [a.tick(slow), b.tick(slow), a.tick(slow), b.tick(slow)].map((t) =>
      t.then((r) => {
        if (!r.ran && ++refused === 3) allRefused();
        return r;
      }),
    );
    // Three ticks come back refused while the fourth's run is held; then it may finish.
    await threeRefused;
    expect(runs).toBe(1);
    release();
    const results = await Promise.all(ticks);
    expect(maxConcurrent).toBe(1);
    expect(runs).toBe(1);
    expect(results.filter((r) => r.ran)).toHaveLength(1);
    expect(seen).toHaveLength(4);
    // Once the lock is released, the next tick runs again.
    expect((await b.tick(slow)).ran).toBe(true);
    expect(runs).toBe(2);
  });

  it("reports a task's failure and keeps going", async () => {
    const failing = { id: uid("failing"), everyMs: 60_000, run: async () => Promise.reject(new Error("boom")) };
    const s = new InProcessScheduler(process.env.DATABASE_URL!, [failing]);
    expect(await s.tick(failing)).toMatchObject({ ran: true, error: "boom" });
    expect(await s.tick(failing)).toMatchObject({ ran: true, error: "boom" });
  });
});
