import { InngestTestEngine } from "@inngest/test";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cancelBulkRun, getBulkRun, previewBulk, setBulkRunPaused, startBulkRun } from "@/server/admin/bulk";
import { processBulkRun, processPendingBulkRuns, stepBulkRun } from "@/server/admin/bulk-runner";
import { getDb } from "@/server/db";
import { processBulkRunsFn } from "@/server/inngest/functions/process-bulk-runs";
import { cancelJob } from "@/server/jobs/cancel";
import { setConsent } from "@/server/jobs/consent";
import { defaultTasks } from "@/server/scheduler/tasks";
import { createLearner, createTestJob, uid, type Learner } from "../helpers/factories";

/** Bulk actions of any size in the background: exact counts, batches, a clean stop, racing runners. */
let admin: Learner;
const db = () => getDb();
const learners: Learner[] = [];

beforeAll(async () => {
  admin = await createLearner({ role: "admin" });
});
afterEach(() => {
  delete process.env.BULK_BATCH_SIZE;
});
afterAll(async () => {
  for (const l of learners) await setConsent(l.user.id, false, { type: "learner", id: l.user.id });
});

/** `n` jobs of a fresh learner in one status, made in one statement (copies of a real job). */
async function jobsOf(n: number, status: "pending" | "failed") {
  const learner = await createLearner();
  learners.push(learner);
  const base = await createTestJob(learner, "weak_point_analysis");
  const tag = uid("bulk");
  await db().$executeRaw`
    INSERT INTO "AiRuntimeJob" (id, "userId", "jobType", "targetType", "targetId", "snapshotId", status, "inputHash", "idempotencyKey",
      params, "errorCode", "createdAt", "updatedAt", "finishedAt")
    SELECT ${tag} || '_' || g, "userId", "jobType", "targetType", "targetId", "snapshotId", ${status}::"JobStatus", "inputHash", ${tag} || '-' || g,
      params, CASE WHEN ${status} = 'failed' THEN 'MODEL_TIMEOUT' END, now() - interval '1 hour' + g * interval '1 millisecond', now(),
      CASE WHEN ${status} = 'failed' THEN now() END
    FROM "AiRuntimeJob", generate_series(1, ${n}) g WHERE id = ${base.id}`;
  // The template job itself is out of every scope below.
  await cancelJob(base.id, { type: "learner", id: learner.user.id });
  return { learner, tag, filter: { user: learner.user.id, status: [status] } };
}

const statusCount = (userId: string, status: "pending" | "cancelled" | "failed") =>
  db().aiRuntimeJob.count({ where: { userId, status, id: { startsWith: "bulk_" } } });

async function audit(runId: string) {
  const rows = await db().$queryRaw<{ count: number; scope: Record<string, unknown> }[]>`
    SELECT count, scope FROM "AdminAuditLog" WHERE scope->>'bulkRunId' = ${runId}`;
  return rows;
}

describe("a bulk action larger than any single request", () => {
  it("cancels 6,000 jobs in batches in the background; preview and total are exact; one final audited count", async () => {
    process.env.BULK_BATCH_SIZE = "1000";
    const { learner, filter } = await jobsOf(6_000, "pending");
    const preview = await previewBulk("cancel", { filter });
    expect(preview).toMatchObject({ matched: 6_000, count: 6_000 });
    const run = await startBulkRun("cancel", { filter }, 6_000, admin.user.id);
    expect(run).toMatchObject({ status: "running", total: 6_000, processed: 0 });
    expect(await processBulkRun(run.id, { maxBatches: 2 })).toBe("batch");
    expect(await getBulkRun(run.id)).toMatchObject({ status: "running", processed: 2_000, affected: 2_000 });
    expect(await processBulkRun(run.id)).toBe("done");
    expect(await getBulkRun(run.id)).toMatchObject({ status: "done", processed: 6_000, affected: 6_000, errors: 0 });
    expect(await statusCount(learner.user.id, "pending")).toBe(0);
    const rows = await audit(run.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ count: 6_000, scope: { confirmed: 6_000, status: "done" } });
  }, 120_000);

  it("a confirmation with a stale count starts nothing (SCOPE_CHANGED)", async () => {
    const { filter } = await jobsOf(3, "pending");
    await expect(startBulkRun("cancel", { filter }, 2, admin.user.id)).rejects.toMatchObject({
      code: "SCOPE_CHANGED",
      details: { count: 3 },
    });
    expect(await db().bulkRun.count({ where: { actorId: admin.user.id, total: 2 } })).toBe(0);
  });

  it("covers only the jobs that existed when it started, so its total stays exact", async () => {
    process.env.BULK_BATCH_SIZE = "2";
    const { learner, filter } = await jobsOf(5, "pending");
    const run = await startBulkRun("cancel", { filter }, 5, admin.user.id);
    // A job made after the run started: created once the clock has passed the run's start (ms resolution).
    while (Date.now() <= run.createdAt.getTime()) await new Promise((r) => setImmediate(r));
    const late = await createTestJob(learner, "quiz_generation", { params: { count: 2 } });
    expect(await processBulkRun(run.id)).toBe("done");
    expect(await getBulkRun(run.id)).toMatchObject({ processed: 5, affected: 5 });
    expect((await db().aiRuntimeJob.findUniqueOrThrow({ where: { id: late.id } })).status).toBe("pending");
  });
});

describe("a paused bulk run", () => {
  it("holds at a batch boundary: one batch by hand shows the exact middle state, resume finishes it exact", async () => {
    process.env.BULK_BATCH_SIZE = "5";
    const { learner, filter } = await jobsOf(20, "pending");
    const run = await startBulkRun("cancel", { filter }, 20, admin.user.id, { paused: true });
    expect(run).toMatchObject({ status: "running", paused: true, processed: 0 });
    // No runner starts a batch of a paused run (the scheduler tick and the Inngest cron included).
    expect(await processBulkRun(run.id)).toBe("paused");
    expect((await processPendingBulkRuns())[run.id]).toBe("paused");
    expect(await statusCount(learner.user.id, "pending")).toBe(20);
    // One batch by hand: exactly one batch's worth, and still paused.
    expect(await stepBulkRun(run.id, admin.user.id)).toMatchObject({
      status: "running",
      paused: true,
      processed: 5,
      affected: 5,
    });
    expect(await statusCount(learner.user.id, "pending")).toBe(15);
    expect(await processBulkRun(run.id)).toBe("paused");
    // Resumed, it runs to the end with its final count.
    expect(await setBulkRunPaused(run.id, false, admin.user.id)).toMatchObject({ paused: false, processed: 5 });
    expect(await processBulkRun(run.id)).toBe("done");
    expect(await getBulkRun(run.id)).toMatchObject({ status: "done", processed: 20, affected: 20 });
    expect(await statusCount(learner.user.id, "cancelled")).toBe(20);
    const actions = await db().$queryRaw<{ action: string; count: number }[]>`
      SELECT action, count FROM "AdminAuditLog" WHERE scope->>'bulkRunId' = ${run.id} ORDER BY id`;
    expect(actions).toEqual([
      { action: "jobs.bulk_step", count: 5 },
      { action: "jobs.bulk_resume", count: 0 },
      { action: "jobs.bulk_cancel", count: 20 },
    ]);
  });

  it("a pause lands at the boundary after the batch in hand; a running run is not stepped; a paused run can be stopped", async () => {
    process.env.BULK_BATCH_SIZE = "4";
    const { learner, filter } = await jobsOf(12, "pending");
    const run = await startBulkRun("cancel", { filter }, 12, admin.user.id);
    await expect(stepBulkRun(run.id, admin.user.id)).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    expect(await processBulkRun(run.id, { maxBatches: 1 })).toBe("batch");
    const paused = await setBulkRunPaused(run.id, true, admin.user.id);
    expect(paused).toMatchObject({ paused: true, processed: 4 });
    expect(await processBulkRun(run.id)).toBe("paused");
    // Stopping a paused run ends it (cancelled) with what was done; it cannot be resumed after.
    expect((await cancelBulkRun(run.id)).cancelRequested).toBe(true);
    await expect(setBulkRunPaused(run.id, false, admin.user.id)).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    expect(await processBulkRun(run.id)).toBe("cancelled");
    expect(await getBulkRun(run.id)).toMatchObject({ status: "cancelled", processed: 4, affected: 4 });
    expect(await statusCount(learner.user.id, "pending")).toBe(8);
    await expect(setBulkRunPaused(run.id, true, admin.user.id)).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });

  it("the last batch run by hand ends the run", async () => {
    process.env.BULK_BATCH_SIZE = "10";
    const { filter } = await jobsOf(3, "pending");
    const run = await startBulkRun("cancel", { filter }, 3, admin.user.id, { paused: true });
    expect(await stepBulkRun(run.id, admin.user.id)).toMatchObject({ status: "done", processed: 3, affected: 3 });
  });
});

describe("stopping a bulk run", () => {
  it("ends it after the batch in hand: what was done stays done, the rest untouched, the audit says how many", async () => {
    process.env.BULK_BATCH_SIZE = "10";
    const { learner, filter } = await jobsOf(30, "pending");
    const run = await startBulkRun("cancel", { filter }, 30, admin.user.id);
    await processBulkRun(run.id, { maxBatches: 1 });
    expect((await cancelBulkRun(run.id)).cancelRequested).toBe(true);
    expect(await processBulkRun(run.id)).toBe("cancelled");
    const ended = await getBulkRun(run.id);
    expect(ended).toMatchObject({ status: "cancelled", processed: 10, affected: 10 });
    expect(ended.finishedAt).not.toBeNull();
    expect(await statusCount(learner.user.id, "pending")).toBe(20);
    expect(await audit(run.id)).toEqual([
      expect.objectContaining({ count: 10, scope: expect.objectContaining({ status: "cancelled", processed: 10 }) }),
    ]);
    // A second stop, or a runner coming late, changes nothing.
    await expect(cancelBulkRun(run.id)).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    expect(await processBulkRun(run.id)).toBe("finished");
    expect(await statusCount(learner.user.id, "pending")).toBe(20);
  });

  it("a stop that races the runner still ends with consistent counts", async () => {
    process.env.BULK_BATCH_SIZE = "5";
    const { learner, filter } = await jobsOf(40, "pending");
    const run = await startBulkRun("cancel", { filter }, 40, admin.user.id);
    const [outcome] = await Promise.all([processBulkRun(run.id), cancelBulkRun(run.id)]);
    expect(["cancelled", "done", "busy", "finished"]).toContain(outcome);
    await processPendingBulkRuns();
    const ended = await getBulkRun(run.id);
    expect(ended.status === "cancelled" || ended.status === "done").toBe(true);
    expect(await statusCount(learner.user.id, "pending")).toBe(40 - ended.affected);
    expect((await audit(run.id))[0]!.count).toBe(ended.affected);
  });
});

describe("runners that race", () => {
  it("three runners on one re-run: every failed job re-run exactly once, counts exact", async () => {
    process.env.BULK_BATCH_SIZE = "5";
    const { tag, filter } = await jobsOf(25, "failed");
    const run = await startBulkRun("rerun", { filter }, 25, admin.user.id);
    await Promise.all([processBulkRun(run.id), processBulkRun(run.id), processPendingBulkRuns()]);
    expect(await getBulkRun(run.id)).toMatchObject({ status: "done", processed: 25, affected: 25, errors: 0 });
    const reruns = await db().aiRuntimeJob.groupBy({
      by: ["retriedFromJobId"],
      where: { retriedFromJobId: { startsWith: tag } },
      _count: true,
    });
    expect(reruns).toHaveLength(25);
    expect(reruns.every((r) => r._count === 1)).toBe(true);
    expect(await audit(run.id)).toHaveLength(1);
  });
});

describe("an orphaned run (its process went away)", () => {
  it("is resumed from its cursor by the process-bulk-runs Inngest function, as by the in-process scheduler", async () => {
    process.env.BULK_BATCH_SIZE = "4";
    const { learner, filter } = await jobsOf(10, "pending");
    const run = await startBulkRun("cancel", { filter }, 10, admin.user.id);
    await processBulkRun(run.id, { maxBatches: 1 }); // then the process "dies"
    const t = new InngestTestEngine({ function: processBulkRunsFn });
    const { result, ctx } = await t.execute();
    expect(ctx.step.run).toHaveBeenCalledWith("resume-bulk-runs", expect.any(Function));
    expect((result as Record<string, string>)[run.id]).toBe("done");
    expect(await getBulkRun(run.id)).toMatchObject({ status: "done", processed: 10, affected: 10 });
    expect(await statusCount(learner.user.id, "pending")).toBe(0);
    expect(defaultTasks().some((task) => task.id === "bulk-runs")).toBe(true);
  });
});
