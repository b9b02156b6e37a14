import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLearner, createTestJob, jobRow, runtimeKey } from "../helpers/factories";
import { eventually, startApiServer } from "./api-server";
import { startTestRuntime } from "./harness";

let api: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  api = await startApiServer();
});
afterAll(() => api.close());

describe("reference Runtime under a full slot table", () => {
  it("keeps one abort listener at most however many full-slot waits it goes through, and no MaxListenersExceededWarning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    const learner = await createLearner();
    // 40 jobs through 2 slots: the poll loop waits for a free slot about 20 times.
    const jobs: { id: string }[] = [];
    for (let i = 0; i < 4; i++)
      jobs.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, () => createTestJob(learner, "quiz_generation", { params: { count: 1 } })),
        )),
      );
    const rt = startTestRuntime(api.url, await runtimeKey(), {
      RUNTIME_CONCURRENCY: "2",
      RUNTIME_LOCAL_DELAY_MS: "15",
    });
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, rt.runtime.stopListeners)), 5);
    try {
      await eventually("all jobs succeeded", async () => {
        const rows = await Promise.all(jobs.map((j) => jobRow(j.id)));
        return rows.every((r) => r.status === "succeeded");
      });
      const started = rt.events.filter((e) => e.event === "job.started").length;
      expect(started).toBe(40);
      // The waits really happened: the slot table was full most of the run.
      expect(rt.runtime.fullSlotWaits).toBeGreaterThanOrEqual(15);
      expect(most).toBeLessThanOrEqual(1);
      expect(rt.runtime.stopListeners).toBeLessThanOrEqual(1);
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      clearInterval(sampler);
      process.off("warning", onWarning);
      await rt.runtime.shutdown(0);
    }
    expect(rt.runtime.stopListeners).toBe(0);
  }, 120_000);
});
