import { afterEach, describe, expect, it } from "vitest";
import { advanceClock, now, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { weeklyAnalyses } from "@/server/inngest/functions/weekly-analyses";
import {
  isoWeek,
  lastAnalysesSlot,
  analysesSlotDue,
  WEEKLY_ANALYSES_CRON,
  WEEKLY_ANALYSES_SCHEDULE,
} from "@/server/jobs/weekly-analyses";
import { InProcessScheduler } from "@/server/scheduler/in-process";
import { defaultTasks, ANALYSES_TICK_MS } from "@/server/scheduler/tasks";
import { createLearner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";

/** The weekly analyses runs on one schedule, Mondays 06:00 UTC, under Inngest and in-process alike. */
afterEach(() => resetClock());

const at = (iso: string) => new Date(iso);
const HOUR = 3_600_000;

describe("the weekly analyses's schedule", () => {
  it("the Inngest function's cron is the shared schedule", () => {
    expect(WEEKLY_ANALYSES_SCHEDULE).toEqual({ weekday: 1, hour: 6, minute: 0 });
    expect(WEEKLY_ANALYSES_CRON).toBe("0 6 * * 1");
    expect(JSON.stringify(weeklyAnalyses.opts.triggers)).toContain(WEEKLY_ANALYSES_CRON);
  });

  it("finds the latest Monday 06:00 UTC at or before a moment", () => {
    expect(lastAnalysesSlot(at("2026-11-30T06:00:00Z")).toISOString()).toBe("2026-11-30T06:00:00.000Z"); // a Monday
    expect(lastAnalysesSlot(at("2026-11-30T05:59:59Z")).toISOString()).toBe("2026-11-23T06:00:00.000Z");
    expect(lastAnalysesSlot(at("2026-12-03T15:00:00Z")).toISOString()).toBe("2026-11-30T06:00:00.000Z"); // Thursday
    expect(lastAnalysesSlot(at("2026-12-06T23:59:00Z")).toISOString()).toBe("2026-11-30T06:00:00.000Z"); // Sunday
    expect(lastAnalysesSlot(at("2027-01-04T07:00:00Z")).toISOString()).toBe("2027-01-04T06:00:00.000Z"); // across a year
  });

  it("is due only in the slot's window: never on another day or later on Monday", () => {
    expect(analysesSlotDue(at("2026-11-30T06:00:00Z"), ANALYSES_TICK_MS)?.toISOString()).toBe(
      "2026-11-30T06:00:00.000Z",
    );
    expect(analysesSlotDue(at("2026-11-30T06:19:59Z"), ANALYSES_TICK_MS)).not.toBeNull();
    expect(analysesSlotDue(at("2026-11-30T06:20:00Z"), ANALYSES_TICK_MS)).toBeNull();
    expect(analysesSlotDue(at("2026-11-30T05:59:00Z"), ANALYSES_TICK_MS)).toBeNull();
    for (let h = 1; h < 7 * 24; h++) {
      const t = new Date(at("2026-11-30T06:30:00Z").getTime() + h * HOUR);
      expect(analysesSlotDue(t, ANALYSES_TICK_MS), t.toISOString()).toBeNull();
    }
  });

  it("ticks every ANALYSES_TICK_MS over a week: exactly one slot is run, wherever the ticks start", () => {
    for (const startMinute of [0, 3, 9.99]) {
      const start = at("2026-11-30T00:00:00Z").getTime() + startMinute * 60_000;
      const due = new Set<string>();
      for (let t = start; t < start + 7 * 24 * HOUR; t += ANALYSES_TICK_MS) {
        const slot = analysesSlotDue(new Date(t), ANALYSES_TICK_MS);
        if (slot) due.add(slot.toISOString());
      }
      expect([...due]).toEqual(["2026-11-30T06:00:00.000Z"]);
    }
  });
});

describe("the in-process scheduler's weekly task", () => {
  it("creates nothing outside the slot and the week's analyses inside it", async () => {
    const learner = await createLearner();
    await getDb().studySession.create({ data: { userId: learner.user.id, startedAt: now(), minutes: 10 } });
    const task = defaultTasks().find((t) => t.id === "weekly-analyses")!;
    expect(task.everyMs).toBe(ANALYSES_TICK_MS);
    const scheduler = new InProcessScheduler(process.env.DATABASE_URL!, [task]);
    const analyses = () =>
      getDb().aiRuntimeJob.count({
        where: { userId: learner.user.id, idempotencyKey: { startsWith: "weekly-review:" } },
      });
    try {
      // The next Monday 06:05 UTC after now: the learner studied within the 7 days before it.
      const slot = new Date(lastAnalysesSlot(now()).getTime() + 7 * 24 * HOUR);
      advanceClock(slot.getTime() + 5 * 60_000 - now().getTime() - 24 * HOUR); // Sunday 06:05
      expect(await scheduler.tick(task)).toMatchObject({ ran: true, result: { due: false } });
      expect(await analyses()).toBe(0);
      advanceClock(24 * HOUR); // Monday 06:05
      expect(await scheduler.tick(task)).toMatchObject({ ran: true, result: { due: true, week: isoWeek(slot) } });
      expect(await analyses()).toBe(2);
      advanceClock(ANALYSES_TICK_MS); // a second wake-up in the window makes nothing new
      expect(await scheduler.tick(task)).toMatchObject({ result: { due: true, created: 0 } });
      expect(await analyses()).toBe(2);
    } finally {
      await scheduler.stop();
      await releaseJobsOf([learner]);
    }
  });
});
