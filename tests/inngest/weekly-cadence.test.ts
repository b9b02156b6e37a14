import { afterEach, describe, expect, it } from "vitest";
import { advanceClock, now, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { weeklyLearningReview } from "@/server/inngest/functions/weekly-learning-review";
import {
  isoWeek,
  lastReviewSlot,
  reviewSlotDue,
  WEEKLY_REVIEW_CRON,
  WEEKLY_REVIEW_SCHEDULE,
} from "@/server/jobs/weekly-review";
import { InProcessScheduler } from "@/server/scheduler/in-process";
import { defaultTasks, REVIEW_TICK_MS } from "@/server/scheduler/tasks";
import { createLearner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";

/** The weekly review runs on one schedule, Mondays 06:00 UTC, under Inngest and in-process alike. */
afterEach(() => resetClock());

const at = (iso: string) => new Date(iso);
const HOUR = 3_600_000;

describe("the weekly review's schedule", () => {
  it("the Inngest function's cron is the shared schedule", () => {
    expect(WEEKLY_REVIEW_SCHEDULE).toEqual({ weekday: 1, hour: 6, minute: 0 });
    expect(WEEKLY_REVIEW_CRON).toBe("0 6 * * 1");
    expect(JSON.stringify(weeklyLearningReview.opts.triggers)).toContain(WEEKLY_REVIEW_CRON);
  });

  it("finds the latest Monday 06:00 UTC at or before a moment", () => {
    expect(lastReviewSlot(at("2026-11-30T06:00:00Z")).toISOString()).toBe("2026-11-30T06:00:00.000Z"); // a Monday
    expect(lastReviewSlot(at("2026-11-30T05:59:59Z")).toISOString()).toBe("2026-11-23T06:00:00.000Z");
    expect(lastReviewSlot(at("2026-12-03T15:00:00Z")).toISOString()).toBe("2026-11-30T06:00:00.000Z"); // Thursday
    expect(lastReviewSlot(at("2026-12-06T23:59:00Z")).toISOString()).toBe("2026-11-30T06:00:00.000Z"); // Sunday
    expect(lastReviewSlot(at("2027-01-04T07:00:00Z")).toISOString()).toBe("2027-01-04T06:00:00.000Z"); // across a year
  });

  it("is due only in the slot's window: never on another day or later on Monday", () => {
    expect(reviewSlotDue(at("2026-11-30T06:00:00Z"), REVIEW_TICK_MS)?.toISOString()).toBe("2026-11-30T06:00:00.000Z");
    expect(reviewSlotDue(at("2026-11-30T06:19:59Z"), REVIEW_TICK_MS)).not.toBeNull();
    expect(reviewSlotDue(at("2026-11-30T06:20:00Z"), REVIEW_TICK_MS)).toBeNull();
    expect(reviewSlotDue(at("2026-11-30T05:59:00Z"), REVIEW_TICK_MS)).toBeNull();
    for (let h = 1; h < 7 * 24; h++) {
      const t = new Date(at("2026-11-30T06:30:00Z").getTime() + h * HOUR);
      expect(reviewSlotDue(t, REVIEW_TICK_MS), t.toISOString()).toBeNull();
    }
  });

  it("ticks every REVIEW_TICK_MS over a week: exactly one slot is run, wherever the ticks start", () => {
    for (const startMinute of [0, 3, 9.99]) {
      const start = at("2026-11-30T00:00:00Z").getTime() + startMinute * 60_000;
      const due = new Set<string>();
      for (let t = start; t < start + 7 * 24 * HOUR; t += REVIEW_TICK_MS) {
        const slot = reviewSlotDue(new Date(t), REVIEW_TICK_MS);
        if (slot) due.add(slot.toISOString());
      }
      expect([...due]).toEqual(["2026-11-30T06:00:00.000Z"]);
    }
  });
});

describe("the in-process scheduler's weekly task", () => {
  it("creates nothing outside the slot and the week's review inside it", async () => {
    const learner = await createLearner();
    await getDb().studySession.create({ data: { userId: learner.user.id, startedAt: now(), minutes: 10 } });
    const task = defaultTasks().find((t) => t.id === "weekly-learning-review")!;
    expect(task.everyMs).toBe(REVIEW_TICK_MS);
    const scheduler = new InProcessScheduler(process.env.DATABASE_URL!, [task]);
    const reviews = () =>
      getDb().aiRuntimeJob.count({
        where: { userId: learner.user.id, idempotencyKey: { startsWith: "weekly-review:" } },
      });
    try {
      // The next Monday 06:05 UTC after now: the learner studied within the 7 days before it.
      const slot = new Date(lastReviewSlot(now()).getTime() + 7 * 24 * HOUR);
      advanceClock(slot.getTime() + 5 * 60_000 - now().getTime() - 24 * HOUR); // Sunday 06:05
      expect(await scheduler.tick(task)).toMatchObject({ ran: true, result: { due: false } });
      expect(await reviews()).toBe(0);
      advanceClock(24 * HOUR); // Monday 06:05
      expect(await scheduler.tick(task)).toMatchObject({ ran: true, result: { due: true, week: isoWeek(slot) } });
      expect(await reviews()).toBe(2);
      advanceClock(REVIEW_TICK_MS); // a second wake-up in the window makes nothing new
      expect(await scheduler.tick(task)).toMatchObject({ result: { due: true, created: 0 } });
      expect(await reviews()).toBe(2);
    } finally {
      await scheduler.stop();
      await releaseJobsOf([learner]);
    }
  });
});
