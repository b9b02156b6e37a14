import { setConsent } from "@/server/jobs/consent";
import type { Learner } from "./factories";

/**
 * Turns AI off for these learners, which cancels their pending jobs and asks held ones to stop
 * (through the domain, as a learner would). Test files share one database and some poll the
 * queue with a limit, so a file leaves no pending jobs of its own behind.
 */
export async function releaseJobsOf(learners: (Learner | undefined)[]) {
  for (const l of learners) if (l) await setConsent(l.user.id, false, { type: "system", id: "test-cleanup" });
}
