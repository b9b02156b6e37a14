import { claimJobs, pollJobs } from "../jobs/lease";
import { getJobWaiters } from "../events/job-waiters";
import { watchKey } from "../runtime-keys";
import { currentScope, keyRevoked, sameScope, scopeRefusal, type KeyScope } from "../jobs/key-scope";
import type { pollRequest } from "./contract";
import type { z } from "zod";
import type { JobType } from "../generated/prisma/enums";

type Found = Awaited<ReturnType<typeof claimJobs>> | Awaited<ReturnType<typeof pollJobs>>;

/** Whether scopes `s` leave a found job out (a summary from a plain poll names no key mode). */
const refused = (job: { jobType: JobType; model?: { apiKeyMode: string } }, s: KeyScope) =>
  !!scopeRefusal({ jobType: job.jobType, apiKeyMode: job.model?.apiKeyMode ?? "platform_key" }, s);

/**
 * poll / claim, held up to waitMs while there is nothing to return. The waiter is registered
 * before each query, so a job committed in between still wakes it; a wake that finds nothing
 * (another Runtime was faster) waits again for the rest of the time. When the client goes away
 * (`signal` aborts) the wait ends at once and nothing is claimed for it.
 *
 * The key is the one the request was authenticated with, but a poll may wait for 20 s (docs/contract.md#consent-credentials-and-cancellation):
 * a revocation of it ends the wait with 401, and a scope change makes the wait go on under the new
 * scopes. Each query checks the key again in its own statement (keyStillValid), so a change that
 * commits before a claim does wins even before its notification arrives here; a change learnt of
 * after a claim (the claim committed first, the change then ended those leases) answers 401, or
 * without the jobs the new scopes leave out.
 */
export async function pollOrWait(
  body: z.infer<typeof pollRequest>,
  caller: { keyId: string; scope: KeyScope; signal?: AbortSignal },
): Promise<Found> {
  let scope = caller.scope;
  let watch = watchKey(caller.keyId);
  /** Reads the key again when it may have changed; throws when it is revoked. */
  const recheck = async () => {
    if (!watch.signal.aborted && watch.live) return;
    watch.stop();
    watch = watchKey(caller.keyId);
    const fresh = await currentScope(caller.keyId);
    if (!fresh) throw keyRevoked();
    if (!sameScope(fresh, scope)) scope = fresh;
  };
  const query = async (): Promise<Found> => {
    const input = { ...body, keyId: caller.keyId, scope };
    const jobs = body.claim ? await claimJobs(input) : await pollJobs(input);
    if (!jobs.length) return jobs;
    await recheck();
    if (body.claim) return (jobs as Awaited<ReturnType<typeof claimJobs>>).filter((j) => !refused(j.job, scope));
    return (jobs as Awaited<ReturnType<typeof pollJobs>>).filter((j) => !refused(j, scope));
  };
  try {
    if (!body.waitMs) return await query();
    const deadline = Date.now() + body.waitMs;
    for (;;) {
      const waiter = getJobWaiters().register(body.capabilities, body.claim);
      let queryAgain = false;
      try {
        const jobs = await query();
        if (jobs.length) return jobs;
        const left = deadline - Date.now();
        if (left <= 0) return jobs;
        const outcome = await waitFor(waiter, left, [caller.signal, watch.signal]);
        if (caller.signal?.aborted) return jobs;
        if (outcome === "aborted" || outcome === "woken") {
          await recheck();
          queryAgain = outcome === "woken";
          continue;
        }
        return jobs;
      } finally {
        waiter.cancel(queryAgain);
      }
    }
  } finally {
    watch.stop();
  }
}

/** Waits until woken, `ms` pass, or one of the signals aborts ("aborted"). */
async function waitFor(
  waiter: ReturnType<ReturnType<typeof getJobWaiters>["register"]>,
  ms: number,
  signals: (AbortSignal | undefined)[],
) {
  const either = new AbortController();
  const stop = () => either.abort();
  const live = signals.filter((s): s is AbortSignal => !!s);
  for (const s of live) s.addEventListener("abort", stop, { once: true });
  if (live.some((s) => s.aborted)) either.abort();
  try {
    return await waiter.wait(ms, either.signal);
  } finally {
    for (const s of live) s.removeEventListener("abort", stop);
  }
}
