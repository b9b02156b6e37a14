import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerAs } from "../helpers/auth";
import { createLearner, runtimeKey, uid, type Learner } from "../helpers/factories";
import { validOutput } from "../helpers/outputs";
import { releaseJobsOf } from "../helpers/release-jobs";
import { runtime } from "../helpers/runtime-api";

/** The learner and admin job procedures doing their work, end to end with a Runtime. */
let a: Learner;
let admin: Learner;
const others: Learner[] = [];

beforeAll(async () => {
  [a, admin] = await Promise.all([createLearner(), createLearner({ role: "admin" })]);
});
afterAll(() => releaseJobsOf([a, admin, ...others]));

async function anotherLearner() {
  const l = await createLearner();
  others.push(l);
  return l;
}

describe("a learner's jobs", () => {
  it("create → a Runtime runs it → get shows the result and the timeline, without who did what", async () => {
    const me = callerAs(a.user);
    const key = uid("k");
    const created = await me.jobs.create({
      jobType: "learning_state_analysis",
      target: { type: "user", id: a.user.id },
      idempotencyKey: key,
    });
    expect(created).toMatchObject({ created: true, job: { status: "pending", apiKeyMode: "platform_key" } });
    expect(typeof created.job.createdAt).toBe("string");
    const again = await me.jobs.create({
      jobType: "learning_state_analysis",
      target: { type: "user", id: a.user.id },
      idempotencyKey: key,
    });
    expect(again).toMatchObject({ created: false, job: { id: created.job.id } });

    const rt = runtime(await runtimeKey(), uid("rt"));
    const lock = await rt.lock(created.job.id);
    const output = validOutput(
      "learning_state_analysis",
      a.knowledgePoints.map((k) => k.id),
    );
    expect((await rt.result(created.job.id, lock.body.job.attemptNo, output)).status).toBe(200);

    const detail = await me.jobs.get({ jobId: created.job.id });
    expect(detail.job.status).toBe("succeeded");
    expect(detail.result?.output).toEqual(output);
    expect(detail.events.map((e) => e.toStatus)).toEqual(["pending", "locked", "succeeded"]);
    expect(detail.events[0]).not.toHaveProperty("actorId");
    expect(detail.job).not.toHaveProperty("lockedBy");
    expect(detail.job).not.toHaveProperty("userId");

    const snapshot = await me.snapshots.get({ snapshotId: created.job.snapshotId! });
    expect(snapshot.content.learner.id).toBe(a.user.id);

    const asAdmin = await callerAs(admin.user).admin.explorer.detail({ jobId: created.job.id });
    expect(asAdmin.job.userId).toBe(a.user.id);
    expect(asAdmin.events[1]).toMatchObject({ actorType: "runtime", actorId: rt.id });
  });

  it("list pages and filters the learner's own jobs, newest first", async () => {
    const l = await anotherLearner();
    const me = callerAs(l.user);
    const ids: string[] = [];
    for (const jobType of ["learning_state_analysis", "weak_point_analysis", "learning_state_analysis"] as const) {
      ids.push(
        (await me.jobs.create({ jobType, target: { type: "user", id: l.user.id }, idempotencyKey: uid("k") })).job.id,
      );
    }
    const page1 = await me.jobs.list({ pageSize: 2 });
    expect(page1).toMatchObject({ total: 3, page: 1, pageSize: 2 });
    expect(page1.items.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    expect((await me.jobs.list({ pageSize: 2, page: 2 })).items.map((j) => j.id)).toEqual([ids[0]]);
    expect((await me.jobs.list({ jobType: ["weak_point_analysis"] })).items.map((j) => j.id)).toEqual([ids[1]]);
  });

  it("cancel ends a pending job; a second cancel is a 409 conflict", async () => {
    const me = callerAs(a.user);
    const { job } = await me.jobs.create({
      jobType: "weak_point_analysis",
      target: { type: "user", id: a.user.id },
      idempotencyKey: uid("k"),
    });
    expect(await me.jobs.cancel({ jobId: job.id })).toEqual({ status: "cancelled", cancelRequested: false });
    const err = await me.jobs.cancel({ jobId: job.id }).catch((e) => e);
    expect(err.code).toBe("CONFLICT");
    expect(err.cause.code).toBe("JOB_NOT_CANCELLABLE");
  });

  it("turning AI off cancels pending jobs and refuses new ones until it is on again", async () => {
    const l = await anotherLearner();
    const me = callerAs(l.user);
    const { job } = await me.jobs.create({ jobType: "weak_point_analysis", target: { type: "user", id: l.user.id } });
    expect(await me.consent.set({ granted: false })).toEqual({ granted: false, cancelled: 1, cancelRequested: 0 });
    expect((await me.jobs.get({ jobId: job.id })).job.status).toBe("cancelled");
    const refused = await me.jobs
      .create({ jobType: "weak_point_analysis", target: { type: "user", id: l.user.id } })
      .catch((e) => e);
    expect(refused.code).toBe("FORBIDDEN");
    expect(refused.cause.code).toBe("CONSENT_REQUIRED");
    await me.consent.set({ granted: true });
    expect((await me.consent.get()).granted).toBe(true);
  });
});

describe("admin jobs", () => {
  it("re-run makes a new job linked to the failed or cancelled one; admin cancel works on anyone's job", async () => {
    const me = callerAs(a.user);
    const { job } = await me.jobs.create({
      jobType: "flashcard_generation",
      target: { type: "user", id: a.user.id },
      params: { count: 3 },
      idempotencyKey: uid("k"),
    });
    const boss = callerAs(admin.user);
    expect(await boss.admin.jobs.cancel({ jobId: job.id })).toEqual({ status: "cancelled", cancelRequested: false });
    const rerun = await boss.admin.jobs.rerun({ jobId: job.id });
    expect(rerun.job).toMatchObject({
      retriedFromJobId: job.id,
      userId: a.user.id,
      status: "pending",
      params: { count: 3 },
    });
    expect(rerun.job.id).not.toBe(job.id);
    expect((await me.jobs.get({ jobId: job.id })).job.status).toBe("cancelled");
    const filtered = await boss.admin.explorer.list({ filter: { user: a.user.id, status: ["pending"] }, limit: 200 });
    expect(filtered.items.map((j) => j.id)).toContain(rerun.job.id);
    expect(filtered.items.every((j) => j.status === "pending" && j.userId === a.user.id)).toBe(true);
  });
});
