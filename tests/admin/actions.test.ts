import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setConsent } from "@/server/jobs/consent";
import { advanceClock, resetClock } from "@/server/clock";
import { getDb } from "@/server/db";
import { callerAs } from "../helpers/auth";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { eventually } from "../helpers/eventually";
import { ALL_TYPES, call, runtime } from "../helpers/runtime-api";
import { PROTOCOL_HEADER, PROTOCOL_MAJORS, RUNTIME_PROTOCOL_VERSION } from "@/server/runtime-api/protocol";

/** Bulk actions, priority, the audit trail, the overview and Runtimes, through the admin procedures. */
let admin: Learner;
let learner: Learner;
const db = () => getDb();
const asAdmin = () => callerAs(admin.user);

beforeAll(async () => {
  [admin, learner] = await Promise.all([createLearner({ role: "admin" }), createLearner()]);
  owners.push(learner.user.id);
});

// Other test files poll the shared queue: leave no pending job behind (consent off cancels them).
afterAll(async () => {
  const learners = await db().user.findMany({ where: { id: { in: owners } }, select: { id: true } });
  for (const { id } of learners) await setConsent(id, false, { type: "learner", id });
});
const owners: string[] = [];

/** Jobs that ended failed through the Runtime protocol: locked, then a non-retryable failure. */
async function failedJobs(
  owner: Learner,
  n: number,
  jobType: "quiz_generation" | "flashcard_generation" = "quiz_generation",
) {
  owners.push(owner.user.id);
  const rt = runtime(await runtimeKey(), uid("rt"));
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const job = await createTestJob(owner, jobType, { params: { count: 2 } });
    const lock = await rt.lock(job.id);
    expect(lock.status).toBe(200);
    const fail = await rt.fail(job.id, 1, "INVALID_SCHEMA", `bad output ${i}`);
    expect(fail.body.status).toBe("failed");
    ids.push(job.id);
  }
  return ids;
}

/** A bulk run works in the background: wait for its end through the console's own status procedure. */
function finished(id: string) {
  return eventually(
    `bulk run ${id} ends`,
    async () => {
      const run = await asAdmin().admin.actions.bulkStatus({ id });
      return run.status === "running" ? null : run;
    },
    30_000,
  );
}

async function auditRows(action: string) {
  return db().$queryRaw<{ actorId: string; count: number; scope: { confirmed?: number } }[]>`
    SELECT "actorId", count, scope FROM "AdminAuditLog" WHERE action = ${action} AND "actorId" = ${admin.user.id} ORDER BY id`;
}

describe("bulk re-run from a filter", () => {
  it("the preview's count is what is re-run, in batches; the audit row says who and how many", async () => {
    const owner = await createLearner();
    const failed = await failedJobs(owner, 6);
    await failedJobs(owner, 2, "flashcard_generation"); // same user, other type: out of scope
    const filter = { user: owner.user.email, status: ["failed" as const], jobType: ["quiz_generation" as const] };
    const preview = await asAdmin().admin.actions.bulkPreview({ action: "rerun", scope: { filter } });
    expect(preview).toMatchObject({ matched: 6, count: 6 });
    const started = await asAdmin().admin.actions.bulkRun({
      action: "rerun",
      scope: { filter },
      expectedCount: preview.count,
    });
    expect(started).toMatchObject({ status: "running", total: 6 });
    const run = await finished(started.id);
    expect(run).toMatchObject({ status: "done", total: 6, processed: 6, affected: 6, errors: 0 });
    const reruns = await db().aiRuntimeJob.findMany({ where: { retriedFromJobId: { in: failed } } });
    expect(reruns.map((r) => r.retriedFromJobId).sort()).toEqual([...failed].sort());
    expect(reruns.every((r) => r.status === "pending" && r.jobType === "quiz_generation")).toBe(true);
    expect((await auditRows("jobs.bulk_rerun")).at(-1)).toMatchObject({ count: 6, scope: { confirmed: 6 } });
    // Already re-run: a second preview finds nothing left to do.
    expect((await asAdmin().admin.actions.bulkPreview({ action: "rerun", scope: { filter } })).count).toBe(0);
  });

  it("a scope that changed since the preview is refused with SCOPE_CHANGED and nothing is done", async () => {
    const owner = await createLearner();
    const failed = await failedJobs(owner, 3);
    const scope = { filter: { user: owner.user.id, status: ["failed" as const] } };
    const err = await asAdmin()
      .admin.actions.bulkRun({ action: "rerun", scope, expectedCount: 2 })
      .catch((e: TRPCError) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect((err as TRPCError).code).toBe("CONFLICT");
    expect(((err as TRPCError).cause as { code?: string }).code).toBe("SCOPE_CHANGED");
    expect(await db().aiRuntimeJob.count({ where: { retriedFromJobId: { in: failed } } })).toBe(0);
  });
});

describe("bulk cancel of a selection", () => {
  it("pending jobs end cancelled, a running one is asked to stop, finished ones are out of scope", async () => {
    const owner = await createLearner();
    owners.push(owner.user.id);
    const [p1, p2, held, done] = await Promise.all([0, 1, 2, 3].map(() => createTestJob(owner)));
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(held!.id)).status).toBe(200);
    await rt.lock(done!.id);
    await rt.fail(done!.id, 1, "INVALID_SNAPSHOT", "x");
    const scope = { ids: [p1!.id, p2!.id, held!.id, done!.id] };
    const preview = await asAdmin().admin.actions.bulkPreview({ action: "cancel", scope });
    expect(preview).toMatchObject({ matched: 4, count: 3 });
    const started = await asAdmin().admin.actions.bulkRun({ action: "cancel", scope, expectedCount: 3 });
    expect((await finished(started.id)).affected).toBe(3);
    expect((await jobRow(p1!.id)).status).toBe("cancelled");
    expect(await jobRow(held!.id)).toMatchObject({ status: "locked", cancelRequested: true });
    expect((await jobRow(done!.id)).status).toBe("failed");
    expect((await auditRows("jobs.bulk_cancel")).at(-1)).toMatchObject({ count: 3 });
  });

  it("learners are refused and nothing changes", async () => {
    const job = await createTestJob(learner);
    const scope = { ids: [job.id] };
    await expect(
      callerAs(learner.user).admin.actions.bulkRun({ action: "cancel", scope, expectedCount: 1 }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(callerAs(null).admin.actions.bulkPreview({ action: "cancel", scope })).rejects.toMatchObject({
      code: "UNAUTHORIZED",
    });
    expect((await jobRow(job.id)).status).toBe("pending");
  });
});

describe("priority, single actions and the audit trail", () => {
  it("a pending job changes priority (no status change, no event); a finished one is refused with JOB_NOT_PENDING", async () => {
    const job = await createTestJob(learner);
    const events = (await jobRow(job.id)).events.length;
    expect(await asAdmin().admin.actions.setPriority({ jobId: job.id, priority: -5 })).toEqual({
      id: job.id,
      priority: -5,
      previous: 0,
    });
    const row = await jobRow(job.id);
    expect(row).toMatchObject({ priority: -5, status: "pending" });
    expect(row.events).toHaveLength(events);
    await asAdmin().admin.jobs.cancel({ jobId: job.id });
    const err = await asAdmin()
      .admin.actions.setPriority({ jobId: job.id, priority: 1 })
      .catch((e: TRPCError) => e);
    expect(((err as TRPCError).cause as { code?: string }).code).toBe("JOB_NOT_PENDING");
    expect((await jobRow(job.id)).priority).toBe(-5);
    const actions = (await asAdmin().admin.monitor.audit({ limit: 200 })).items
      .filter((a) => a.actorId === admin.user.id)
      .map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["job.priority", "job.cancel"]));
  });

  it("re-run and Runtime key create/revoke are audited", async () => {
    const [failed] = await failedJobs(learner, 1);
    const rerun = await asAdmin().admin.jobs.rerun({ jobId: failed! });
    expect(rerun.created).toBe(true);
    const key = await asAdmin().admin.runtimeKeys.create({ name: uid("k") });
    await asAdmin().admin.runtimeKeys.revoke({ id: key.id });
    const items = (await asAdmin().admin.monitor.audit({ limit: 200 })).items.filter(
      (a) => a.actorId === admin.user.id,
    );
    expect(items.find((a) => a.action === "job.rerun")?.scope).toMatchObject({ jobId: failed, newJobId: rerun.job.id });
    expect(items.find((a) => a.action === "runtime_key.revoke")?.scope).toEqual({ keyId: key.id, leasesEnded: 0 });
    expect(JSON.stringify(items)).not.toContain(key.key);
  });
});

describe("overview and Runtimes", () => {
  it("counts, throughput and the no-Runtime alert", async () => {
    await failedJobs(learner, 1);
    const o = await asAdmin().admin.monitor.overview({ window: "1h" });
    expect(o.totals.failed).toBeGreaterThan(0);
    expect(o.buckets.length).toBe(61);
    expect(o.buckets.reduce((a, b) => a + b.failed, 0)).toBe(o.totals.failed);
    expect(o.byState.find((s) => s.status === "failed")!.n).toBeGreaterThan(0);
    expect(o.totals.waitP50).not.toBeNull();
    await createTestJob(learner); // a job waiting
    advanceClock(10 * 60_000); // every Runtime silent for 10 minutes
    try {
      const later = await asAdmin().admin.monitor.overview({ window: "1h" });
      expect(later.queueDepth).toBeGreaterThan(0);
      expect(later.alert?.code).toBe("NO_RUNTIME");
    } finally {
      resetClock();
    }
  });

  it("lists a Runtime instance with its jobs in hand and recent outcomes", async () => {
    const rt = runtime(await runtimeKey(), uid("rt"));
    const [a, b] = [await createTestJob(learner), await createTestJob(learner)];
    await rt.lock(a.id);
    await rt.lock(b.id);
    await rt.fail(b.id, 1, "INVALID_SCHEMA", "x");
    const items = (await asAdmin().admin.monitor.runtimes()).items;
    expect(items.find((i) => i.id === rt.id)).toMatchObject({
      jobsInHand: 1,
      heldJobIds: [a.id],
      recentFailed: 1,
      recentSucceeded: 0,
    });

    // An expired attempt's lease is lost (docs/contract.md#states-and-transitions): it is in no Runtime's hands (HELD_STATUSES).
    await db().$executeRaw`UPDATE "AiRuntimeJob" SET status = 'expired' WHERE id = ${a.id}`;
    const after = (await asAdmin().admin.monitor.runtimes()).items.find((i) => i.id === rt.id);
    await db().$executeRaw`UPDATE "AiRuntimeJob" SET status = 'locked' WHERE id = ${a.id}`;
    expect(after).toMatchObject({ jobsInHand: 0, heldJobIds: [] });
    expect((await rt.fail(a.id, 1, "INVALID_SCHEMA", "x")).body.status).toBe("failed");
  });

  it("shows each instance's protocol version, a deprecated one with its sunset", async () => {
    const key = await runtimeKey();
    const [current, previous] = [uid("rt"), uid("rt")];
    await call("poll", null, { runtimeInstanceId: current, capabilities: ALL_TYPES, limit: 1 }, { key });
    // No Runtime-Protocol header: protocol 1.
    await call(
      "poll",
      null,
      { runtimeInstanceId: previous, capabilities: ALL_TYPES, limit: 1 },
      {
        key,
        headers: { [PROTOCOL_HEADER]: "" },
      },
    );
    const items = (await asAdmin().admin.monitor.runtimes()).items;
    expect(items.find((i) => i.id === current)).toMatchObject({
      protocolVersion: RUNTIME_PROTOCOL_VERSION,
      protocolDeprecation: null,
    });
    expect(items.find((i) => i.id === previous)).toMatchObject({
      protocolVersion: "1.x",
      protocolDeprecation: { sunsetAt: PROTOCOL_MAJORS[1].sunsetAt.toISOString() },
    });
  });
});
