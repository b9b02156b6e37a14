import { claimJobs, pollJobs } from "../jobs/lease";
import { getJobWaiters } from "../events/job-waiters";
import type { pollRequest } from "./contract";
import type { z } from "zod";
import type { KeyScope } from "../jobs/key-scope";

/**
 * poll / claim, held up to waitMs while there is nothing to return. The waiter is registered
 * before each query, so a job committed in between still wakes it; a wake that finds nothing
 * (another Runtime was faster) waits again for the rest of the time. When the client goes away
 * (`signal` aborts) the wait ends at once and nothing is claimed for it.
 */
export async function pollOrWait(
  body: z.infer<typeof pollRequest>,
  caller: { keyId: string; scope: KeyScope; signal?: AbortSignal },
) {
  const query = () =>
    body.claim
      ? claimJobs({ ...body, keyId: caller.keyId, scope: caller.scope })
      : pollJobs({ ...body, scope: caller.scope });
  if (!body.waitMs) return query();
  const deadline = Date.now() + body.waitMs;
  for (;;) {
    const waiter = getJobWaiters().register(body.capabilities, body.claim);
    let queryAgain = false;
    try {
      const jobs = await query();
      if (jobs.length) return jobs;
      const left = deadline - Date.now();
      if (left <= 0 || (await waiter.wait(left, caller.signal)) !== "woken") return jobs;
      queryAgain = true;
    } finally {
      waiter.cancel(queryAgain);
    }
  }
}
