import { describe, expect, it } from "vitest";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { runtime, ALL_TYPES } from "../helpers/runtime-api";
import { callerAs } from "../helpers/auth";
import { releaseJobsOf } from "../helpers/release-jobs";
import { setCredential } from "@/server/credentials";
import { getDb } from "@/server/db";
import { createRuntimeKey, setRuntimeKeyScope, verifyRuntimeKey } from "@/server/runtime-keys";

/**
 * Runtime key scopes (docs/contract.md#consent-credentials-and-cancellation): the job types a key may claim, and whether it may
 * receive learners' own keys. A claim never takes a job its key may not run; a job on a learner's
 * own DeepSeek key is not claimable (nor lockable) by a key without that scope — it is never run
 * on the platform's key against the learner's choice, and the learner's key never leaves to it.
 */
const ids = (res: { body: { jobs: { id?: string; job?: { id: string } }[] } }) =>
  res.body.jobs.map((j) => j.job?.id ?? j.id!);

describe("Runtime key scopes", () => {
  it("a key limited to quiz generation claims, polls and locks only quiz jobs", async () => {
    const l = await createLearner();
    const quiz = await createTestJob(l, "quiz_generation", { params: { count: 3 } });
    const weak = await createTestJob(l, "weak_point_analysis");
    const rt = runtime(await runtimeKey({ jobTypes: ["quiz_generation"], mayReceiveLearnerKeys: false }), uid("quiz"));

    const polled = await rt.poll({ limit: 50 });
    expect(ids(polled)).toContain(quiz.id);
    expect(ids(polled)).not.toContain(weak.id);
    const lock = await rt.lock(weak.id);
    expect([lock.status, lock.body.error.code, lock.body.error.details.reason]).toEqual([
      409,
      "JOB_NOT_LOCKABLE",
      "key_scope",
    ]);
    expect((await rt.poll({ capabilities: ["weak_point_analysis"], claim: true })).body.jobs).toEqual([]);
    const claimed = await rt.poll({ claim: true, limit: 50 });
    expect(ids(claimed)).toEqual([quiz.id]);
    expect((await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: weak.id } })).status).toBe("pending");
    await releaseJobsOf([l]);
  });

  it("a new key never takes a job on the learner's own key; a key with the scope gets it with the key", async () => {
    const l = await createLearner();
    await setCredential(l.user.id, "sk-learner-own-0123456789");
    const own = await createTestJob(l, "learning_state_analysis", { apiKeyMode: "user_deepseek_key" });
    const platform = await createTestJob(l, "next_action_planning", { apiKeyMode: "platform_key" });

    const plain = runtime((await createRuntimeKey(uid("new-key"))).key, uid("plain"));
    expect(ids(await plain.poll({ limit: 50 }))).not.toContain(own.id);
    const refused = await plain.lock(own.id);
    expect([refused.status, refused.body.error.code]).toEqual([409, "JOB_NOT_LOCKABLE"]);
    expect(JSON.stringify(refused.body)).not.toContain("sk-learner-own");
    const claimed = await plain.poll({ claim: true, limit: 50 });
    expect(ids(claimed)).toEqual([platform.id]);
    expect(claimed.body.jobs[0].job.model.apiKey).toBeUndefined();
    expect(JSON.stringify(claimed.body)).not.toContain("sk-learner-own");

    const trusted = runtime(await runtimeKey({ mayReceiveLearnerKeys: true }), uid("trusted"));
    const got = await trusted.poll({ claim: true, limit: 50 });
    expect(ids(got)).toEqual([own.id]);
    expect(got.body.jobs[0].job.model).toMatchObject({
      apiKeyMode: "user_deepseek_key",
      apiKey: "sk-learner-own-0123456789",
    });
    await releaseJobsOf([l]);
  });

  it("a scope change takes effect on the key's next request, audited with before and after", async () => {
    const l = await createLearner();
    const flash = await createTestJob(l, "flashcard_generation", { params: { count: 3 } });
    const made = await createRuntimeKey(uid("k"));
    const rt = runtime(made.key, uid("rt"));
    expect(ids(await rt.poll({ limit: 50 }))).toContain(flash.id); // cached: every type
    await setRuntimeKeyScope(made.id, { jobTypes: ["quiz_generation"] }, "admin-test");
    expect(ids(await rt.poll({ limit: 50 }))).not.toContain(flash.id);
    expect((await verifyRuntimeKey(`Bearer ${made.key}`)).scope).toEqual({
      jobTypes: ["quiz_generation"],
      mayReceiveLearnerKeys: false,
    });
    const audit = await getDb().adminAuditLog.findFirstOrThrow({
      where: { action: "runtime_key.scope", actorId: "admin-test" },
    });
    expect(audit.scope).toMatchObject({
      keyId: made.id,
      before: { jobTypes: [], mayReceiveLearnerKeys: false },
      after: { jobTypes: ["quiz_generation"], mayReceiveLearnerKeys: false },
    });
    await expect(setRuntimeKeyScope(made.id, { jobTypes: ["nope" as never] })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    await releaseJobsOf([l]);
  });

  it("admins set scopes in the console's procedures; the list shows them; learners cannot", async () => {
    const admin = await createLearner({ role: "admin" });
    const caller = callerAs({ ...admin.user, role: "admin" });
    const made = await caller.admin.runtimeKeys.create({ name: uid("console"), mayReceiveLearnerKeys: true });
    expect([made.jobTypes, made.mayReceiveLearnerKeys]).toEqual([[], true]);
    const changed = await caller.admin.runtimeKeys.setScope({
      id: made.id,
      jobTypes: ["weak_point_analysis"],
      mayReceiveLearnerKeys: false,
    });
    expect(changed).toEqual({ id: made.id, jobTypes: ["weak_point_analysis"], mayReceiveLearnerKeys: false });
    const listed = (await caller.admin.runtimeKeys.list()).items.find((k) => k.id === made.id)!;
    expect([listed.jobTypes, listed.mayReceiveLearnerKeys]).toEqual([["weak_point_analysis"], false]);
    const actions = await getDb().adminAuditLog.findMany({
      where: { actorId: admin.user.id },
      orderBy: { createdAt: "asc" },
    });
    expect(actions.map((a) => a.action)).toEqual(["runtime_key.create", "runtime_key.scope"]);
    const learner = await createLearner();
    await expect(
      callerAs({ ...learner.user, role: "learner" }).admin.runtimeKeys.setScope({
        id: made.id,
        mayReceiveLearnerKeys: true,
      }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(ALL_TYPES).toHaveLength(6);
  });
});
