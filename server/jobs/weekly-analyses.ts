import { getDb } from "../db";
import { now } from "../clock";
import { isAppError } from "../errors";
import { createJob } from "./create";
import { inBatchSpan } from "../observability/job-spans";

const DAY = 86_400_000;
const ANALYSIS_TYPES = ["learning_state_analysis", "next_action_planning"] as const;

/**
 * The weekly analyses' one schedule, Mondays 06:00 UTC. The Inngest cron is written from it, and the
 * in-process scheduler of zero-setup mode runs them only in the same slot (analysesSlotDue),
 * so both modes run them once a week at the same time.
 */
export const WEEKLY_ANALYSES_SCHEDULE = { weekday: 1, hour: 6, minute: 0 } as const;
const { weekday, hour, minute } = WEEKLY_ANALYSES_SCHEDULE;
/** Inngest crons are UTC unless they name a zone. */
export const WEEKLY_ANALYSES_CRON = `${minute} ${hour} * * ${weekday}`;

/** The start of the latest slot at or before `at`. */
export function lastAnalysesSlot(at: Date): Date {
  const slot = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), hour, minute));
  slot.setUTCDate(slot.getUTCDate() - ((at.getUTCDay() - weekday + 7) % 7));
  if (slot > at) slot.setUTCDate(slot.getUTCDate() - 7);
  return slot;
}

/**
 * For a scheduler that wakes every `tickMs`: the slot a wake-up at `at` should run, or null. The
 * window is two ticks wide so a late timer cannot skip a week; a second wake-up in it finds the
 * week's jobs already made (idempotency keys) and creates nothing. Like a cron, a process that
 * is down for the whole window does not catch up.
 */
export function analysesSlotDue(at: Date, tickMs: number): Date | null {
  const slot = lastAnalysesSlot(at);
  return at.getTime() - slot.getTime() < 2 * tickMs ? slot : null;
}

/** ISO week of a date, e.g. "2026-W49": the idempotency scope of the weekly analyses. */
export function isoWeek(date: Date): string {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const day = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - day);
  const yearStart = new Date(Date.UTC(d.getUTCFullYear(), 0, 1));
  const week = Math.ceil(((d.getTime() - yearStart.getTime()) / DAY + 1) / 7);
  return `${d.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

/** Learners with AI consent who answered a quiz or studied in the last 7 days. */
export async function activeLearnerIds(at: Date = now()): Promise<string[]> {
  const since = new Date(at.getTime() - 7 * DAY);
  const rows = await getDb().$queryRaw<{ id: string }[]>`
    SELECT u.id FROM "User" u JOIN "AiConsent" c ON c."userId" = u.id AND c.granted
    WHERE u.role = 'learner' AND (
      EXISTS (SELECT 1 FROM "QuizAttempt" q WHERE q."userId" = u.id AND q."answeredAt" >= ${since}::timestamp(3))
      OR EXISTS (SELECT 1 FROM "StudySession" s WHERE s."userId" = u.id AND s."startedAt" >= ${since}::timestamp(3)))
    ORDER BY u.id`;
  return rows.map((r) => r.id);
}

/**
 * The weekly analyses for one learner: a learning-state analysis and a next-action plan, keyed
 * `weekly-review:<ISO week>` so running it twice in a week creates nothing new. A learner who
 * turned AI off in between is skipped, not an error. Traced as a batch: each job a trace of its own.
 * The key's prefix is the one stored jobs carry, so it stays `weekly-review:` (a new prefix would
 * let a week run before and after an upgrade create its jobs twice).
 */
export function createWeeklyAnalyses(userId: string, at: Date = now()) {
  return inBatchSpan("weekly_analyses", { "analyses.week": isoWeek(at) }, () => analyseLearner(userId, at));
}

async function analyseLearner(userId: string, at: Date) {
  const key = `weekly-review:${isoWeek(at)}`;
  let created = 0;
  for (const jobType of ANALYSIS_TYPES) {
    try {
      const out = await createJob({
        userId,
        jobType,
        target: { type: "user", id: userId },
        idempotencyKey: key,
        priority: 5,
        actor: { type: "workflow", id: "weekly-analyses" },
      });
      if (out.created) created++;
    } catch (e) {
      if (isAppError(e) && (e.code === "CONSENT_REQUIRED" || e.code === "CREDENTIAL_REQUIRED"))
        return { userId, created, skipped: e.code };
      throw e;
    }
  }
  return { userId, created, skipped: null };
}

/** The in-process scheduler's task: the weekly analyses when a slot is due, else nothing. */
export async function runWeeklyAnalysesIfDue(tickMs: number, at: Date = now()) {
  if (!analysesSlotDue(at, tickMs)) return { due: false as const };
  return { due: true as const, ...(await runWeeklyAnalyses(at)) };
}

export async function runWeeklyAnalyses(at: Date = now()) {
  const ids = await activeLearnerIds(at);
  let created = 0;
  for (const id of ids) created += (await createWeeklyAnalyses(id, at)).created;
  return { learners: ids.length, created, week: isoWeek(at) };
}
