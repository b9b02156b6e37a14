import type { JobType } from "@/server/generated/prisma/enums";
import { createTestJob, runtimeKey, uid, type Learner } from "./factories";
import { validOutput } from "./outputs";
import { runtime } from "./runtime-api";

let rt: ReturnType<typeof runtime> | null = null;

/** A job of the learner's that a Runtime ran to a result, through the real Runtime routes. */
export async function succeededJob(
  learner: Learner,
  jobType: JobType,
  params: Record<string, unknown> = {},
  output?: unknown,
) {
  rt ??= runtime(await runtimeKey(), uid("inst"));
  const job = await createTestJob(learner, jobType, { params });
  const lock = await rt.lock(job.id);
  if (lock.status !== 200) throw new Error(`lock: ${lock.status} ${JSON.stringify(lock.body)}`);
  const kpIds = learner.knowledgePoints.map((k) => k.id);
  const res = await rt.result(job.id, lock.body.job.attemptNo, output ?? validOutput(jobType, kpIds, params));
  if (res.status !== 200) throw new Error(`result: ${res.status} ${JSON.stringify(res.body)}`);
  return job;
}
