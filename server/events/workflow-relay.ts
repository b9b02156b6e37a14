import { isTerminal } from "../jobs/constants";
import { inngest, inngestConfigured } from "../inngest/client";
import { jobCreated, jobFinished } from "../inngest/events";
import { deliverDue, recordDelivery } from "../notifications/deliveries";
import type { JobChange, JobFeed } from "./job-feed";

const SEND_TIMEOUT_MS = 3000;

/**
 * Turns committed job changes into workflow events. It runs off the LISTEN feed, so an event is
 * only ever sent after its transaction committed, and never on a request's path: a slow or absent
 * Inngest costs a log line, not a state change. Event ids (job, status, attempt) let Inngest drop
 * the copies that several app instances send. Without an Inngest server, a finished job's webhook
 * is recorded in the database once and delivered by one instance, with retries.
 */
export function startWorkflowRelay(feed: JobFeed, log: (msg: string) => void = (m) => console.warn(m)) {
  const onChange = (change: JobChange) => {
    void relay(change).catch((e) => log(`[workflow-relay] ${change.id} ${change.status}: ${(e as Error).message}`));
  };
  feed.on("change", onChange);
  return () => feed.off("change", onChange);
}

export async function relay(change: JobChange) {
  const { status } = change;
  if (!isTerminal(status) && !change.created) return;
  if (inngestConfigured()) {
    const event = isTerminal(status)
      ? jobFinished.create(
          { jobId: change.id, userId: change.userId, status, attemptNo: change.attemptNo },
          { id: `job-finished:${change.id}:${status}:${change.attemptNo}` },
        )
      : jobCreated.create(
          { jobId: change.id, userId: change.userId, jobType: change.jobType },
          { id: `job-created:${change.id}` },
        );
    await withTimeout(inngest.send(event), SEND_TIMEOUT_MS);
    return;
  }
  if (isTerminal(status)) await deliverInProcess(change.id, status);
}

/**
 * Zero-setup delivery: the delivery is recorded in the database (one row per finished job, however
 * many instances see the change) and sent by whichever instance claims it; retries come from the
 * scheduler's "webhook-deliveries" task (server/notifications/deliveries.ts).
 */
export async function deliverInProcess(jobId: string, status: string) {
  await recordDelivery(jobId, status);
  return deliverDue();
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`Inngest send timed out after ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}
