import { describe, expect, it } from "vitest";
import { JOB_TYPES } from "@/server/job-types";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";
import { getDb } from "@/server/db";

describe("a job's happy path through the Runtime protocol", () => {
  it("pending → locked → running → succeeded, with an event per transition and the result stored", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis");
    const rt = runtime(await runtimeKey(), uid("rt"));

    const polled = await rt.poll({ limit: 50 });
    expect(polled.status).toBe(200);
    expect(polled.body.jobs.map((j: { id: string }) => j.id)).toContain(job.id);

    const locked = await rt.lock(job.id);
    expect(locked.status).toBe(200);
    expect(locked.body.job.attemptNo).toBe(1);
    expect(locked.body.job.snapshot.content.knowledgePoints).toHaveLength(3);
    expect(new Date(locked.body.lockUntil).getTime()).toBeGreaterThan(Date.now() + 50_000);

    const hb = await rt.heartbeat(job.id, 1, { stage: "model_inference", progress: 40, message: "calling model" });
    expect(hb.status).toBe(200);
    expect(hb.body.cancelRequested).toBe(false);
    let row = await jobRow(job.id);
    expect(row.status).toBe("running");
    expect(row.stage).toBe("model_inference");
    expect(row.progress).toBe(40);

    const hb2 = await rt.heartbeat(job.id, 1, { progress: 50 });
    expect(hb2.status).toBe(200);

    const kpIds = learner.knowledgePoints.map((k) => k.id);
    const res = await rt.result(job.id, 1, validOutput("weak_point_analysis", kpIds), {
      modelProvider: "local",
      latencyMs: 12,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "succeeded", idempotent: false });

    row = await jobRow(job.id);
    expect(row.status).toBe("succeeded");
    expect(row.lockedBy).toBeNull();
    expect(row.lockUntil).toBeNull();
    expect(row.progress).toBe(100);
    expect(row.result?.id).toBe(res.body.resultId);
    expect(row.result?.attemptNo).toBe(1);
    expect(row.events.map((e) => [e.fromStatus, e.toStatus])).toEqual([
      [null, "pending"],
      ["pending", "locked"],
      ["locked", "running"],
      ["running", "succeeded"],
    ]);
    const instance = await getDb().runtimeInstance.findUnique({ where: { id: rt.id } });
    expect([...(instance?.capabilities ?? [])].sort()).toEqual([...JOB_TYPES].sort());
  });
});
