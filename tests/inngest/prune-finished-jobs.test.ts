import { afterEach, describe, expect, it } from "vitest";
import { InngestTestEngine } from "@inngest/test";
import { createLearner, createTestJob } from "../helpers/factories";
import { advanceClock, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { cancelJob } from "@/server/jobs/cancel";
import { pruneFinishedJobsFn } from "@/server/inngest/functions/prune-finished-jobs";

/** The daily retention function; in its own file, so its database holds no other test's jobs. */
const DAY = 86_400_000;
afterEach(() => resetClock());

describe("prune-finished-jobs", () => {
  it("drops a time partition once every job in it ended past the retention, with their events; not before", async () => {
    const learner = await createLearner();
    const old = await createTestJob(learner);
    const pending = await createTestJob(learner);
    await cancelJob(old.id, { type: "admin", id: "a" });
    const part = (
      await getDb().$queryRaw<
        { part: string }[]
      >`SELECT tableoid::regclass::text AS part FROM "AiRuntimeJob" WHERE id = ${old.id}`
    )[0]!.part.replace(/"/g, "");
    expect(part).toMatch(/^AiRuntimeJob_p\d{12}$/);
    // Spans are named by their events' partition; the job partition of the span has the same suffix.
    const span = part.replace(/^AiRuntimeJob/, "JobEvent");
    // A new engine per run: one engine replays the steps it has already seen.
    const dropped = async () =>
      (
        (await new InngestTestEngine({ function: pruneFinishedJobsFn }).execute()).result as {
          droppedPartitions: string[];
        }
      ).droppedPartitions;
    advanceClock(120 * DAY);
    // The partition also holds a job still pending: it stays, and so does the old job (retention takes whole partitions).
    expect(await dropped()).not.toContain(span);
    expect(await getDb().aiRuntimeJob.findUnique({ where: { id: old.id } })).not.toBeNull();
    await cancelJob(pending.id, { type: "admin", id: "a" });
    // Ended just now: not yet past the retention.
    expect(await dropped()).not.toContain(span);
    advanceClock(100 * DAY);
    expect(await dropped()).toContain(span);
    for (const job of [old, pending]) {
      expect(await getDb().aiRuntimeJob.findUnique({ where: { id: job.id } })).toBeNull();
      expect(await getDb().jobEvent.count({ where: { jobId: job.id } })).toBe(0);
    }
  });
});
