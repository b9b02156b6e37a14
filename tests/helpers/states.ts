import { expect } from "vitest";
import { getDb } from "@/server/db";
import type { JobStatus } from "@/server/generated/prisma/enums";
import { createTestJob, type Learner } from "./factories";
import { validOutput } from "./outputs";
import { runtime } from "./runtime-api";

type Rt = ReturnType<typeof runtime>;

/** Drives a new job into `state` through the real protocol (never by writing the status). */
export async function jobIn(state: JobStatus, learner: Learner, rt: Rt) {
  const job = await createTestJob(learner, "weak_point_analysis");
  if (state === "pending") return job;
  if (state === "cancelled") {
    const { cancelJob } = await import("@/server/jobs/cancel");
    await cancelJob(job.id, { type: "admin", id: "admin" });
    return job;
  }
  expect((await rt.lock(job.id)).status).toBe(200);
  if (state === "locked") return job;
  expect((await rt.heartbeat(job.id, 1)).status).toBe(200);
  if (state === "running") return job;
  if (state === "succeeded") {
    const res = await rt.result(
      job.id,
      1,
      validOutput(
        "weak_point_analysis",
        learner.knowledgePoints.map((k) => k.id),
      ),
    );
    expect(res.status).toBe(200);
    return job;
  }
  if (state === "failed") {
    expect((await rt.fail(job.id, 1, "INVALID_CREDENTIAL")).status).toBe(200);
    return job;
  }
  throw new Error(`cannot drive a job to ${state}`);
}

/** What must not change when an action is refused. */
export async function fingerprint(jobId: string) {
  const job = await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: jobId } });
  const events = await getDb().jobEvent.count({ where: { jobId } });
  const results = await getDb().aiRuntimeResult.count({ where: { jobId } });
  return {
    status: job.status,
    attemptNo: job.attemptNo,
    retryCount: job.retryCount,
    lockedBy: job.lockedBy,
    lockUntil: job.lockUntil?.getTime() ?? null,
    cancelRequested: job.cancelRequested,
    updatedAt: job.updatedAt.getTime(),
    events,
    results,
  };
}
