import { cron } from "inngest";
import { inngest } from "../client";
import { now } from "../../clock";
import { activeLearnerIds, createWeeklyAnalyses, isoWeek, WEEKLY_ANALYSES_CRON } from "../../jobs/weekly-analyses";

/**
 * Mondays 06:00 UTC (WEEKLY_ANALYSES_SCHEDULE, shared with the in-process scheduler): for each learner active in the last 7 days with AI consent, a learning-state
 * analysis and a next-action plan. Idempotent per learner and ISO week (the jobs' idempotency
 * key), so a retried or repeated run creates nothing new.
 */
export const weeklyAnalyses = inngest.createFunction(
  { id: "weekly-analyses", triggers: [cron(WEEKLY_ANALYSES_CRON)], concurrency: { limit: 1 } },
  async ({ step }) => {
    // The week is fixed in the first step: a retry or a replay after midnight on Sunday still
    // creates this run's week, keyed by the moment the first step ran.
    const { week, at, learners } = await step.run("find-active-learners", async () => {
      const at = now();
      return { week: isoWeek(at), at: at.toISOString(), learners: await activeLearnerIds(at) };
    });
    let created = 0;
    for (const userId of learners) {
      // One step per learner (same id, counted by the SDK): a failure retries only that learner.
      const out = await step.run("create-analysis-jobs", () => createWeeklyAnalyses(userId, new Date(at)));
      created += out.created;
    }
    return { week, learners: learners.length, created };
  },
);
