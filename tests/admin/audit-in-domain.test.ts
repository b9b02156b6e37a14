import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBulkRun } from "@/server/admin/bulk";
import { processBulkRun } from "@/server/admin/bulk-runner";
import { getDb } from "@/server/db";
import { cancelJob } from "@/server/jobs/cancel";
import { rerunJob } from "@/server/jobs/rerun";
import { CLI_ACTOR, createRuntimeKey, revokeRuntimeKey, verifyRuntimeKey } from "@/server/runtime-keys";
import { createLearner, createTestJob, jobRow, runtimeKey, uid, type Learner } from "../helpers/factories";
import { CLI_TEST_TIMEOUT_MS, runScript } from "../helpers/cli";
import { releaseJobsOf } from "../helpers/release-jobs";
import { runtime } from "../helpers/runtime-api";

/**
 * Audit rows are written by the domain, in the transaction of the change they record, whichever
 * door asked (console, CLI, bulk runner): the row exists exactly when the change committed. To
 * prove "same transaction", a trigger in this file's own database refuses audit rows of actors
 * named `audit-fails-…`: the change must then roll back with it.
 */
let learner: Learner;
const db = () => getDb();
const audits = (actorId: string) =>
  db().$queryRaw<{ action: string; count: number; scope: Record<string, unknown> }[]>`
    SELECT action, count, scope FROM "AdminAuditLog" WHERE "actorId" = ${actorId} ORDER BY id`;
const admin = () => ({ type: "admin" as const, id: uid("admin") });
const failingAdmin = () => ({ type: "admin" as const, id: uid("audit-fails") });

beforeAll(async () => {
  learner = await createLearner();
  await db().$executeRawUnsafe(`CREATE FUNCTION refuse_test_audit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW."actorId" LIKE 'audit-fails%' THEN RAISE EXCEPTION 'audit write refused (test)'; END IF; RETURN NEW; END $$`);
  await db().$executeRawUnsafe(`CREATE TRIGGER refuse_test_audit BEFORE INSERT ON "AdminAuditLog"
    FOR EACH ROW EXECUTE FUNCTION refuse_test_audit()`);
});

afterAll(async () => {
  await releaseJobsOf([learner]);
  await db().$executeRawUnsafe(`DROP TRIGGER IF EXISTS refuse_test_audit ON "AdminAuditLog"`);
  await db().$executeRawUnsafe(`DROP FUNCTION IF EXISTS refuse_test_audit()`);
});

async function failedJob() {
  const rt = runtime(await runtimeKey(), uid("rt"));
  const job = await createTestJob(learner, "learning_state_analysis");
  expect((await rt.lock(job.id)).status).toBe(200);
  expect((await rt.fail(job.id, 1, "INVALID_SNAPSHOT", "x")).body.status).toBe("failed");
  return job.id;
}

describe("cancel", () => {
  it("an admin's cancel writes one row with the outcome; a learner's writes none", async () => {
    const by = admin();
    const job = await createTestJob(learner);
    expect(await cancelJob(job.id, by)).toEqual({ status: "cancelled", cancelRequested: false });
    expect(await audits(by.id)).toEqual([
      { action: "job.cancel", count: 1, scope: { jobId: job.id, status: "cancelled", cancelRequested: false } },
    ]);

    const own = await createTestJob(learner);
    await cancelJob(own.id, { type: "learner", id: learner.user.id }, { ownerId: learner.user.id });
    expect(await audits(learner.user.id)).toEqual([]);
  });

  it("a refused cancel leaves no row; a failed audit write leaves the job as it was", async () => {
    const by = admin();
    const done = await failedJob();
    await expect(cancelJob(done, by)).rejects.toMatchObject({ code: "JOB_NOT_CANCELLABLE" });
    expect(await audits(by.id)).toEqual([]);

    const pending = await createTestJob(learner);
    await expect(cancelJob(pending.id, failingAdmin())).rejects.toThrow(/audit write refused/);
    expect(await jobRow(pending.id)).toMatchObject({ status: "pending", cancelRequested: false });
    expect((await jobRow(pending.id)).events.map((e) => e.toStatus)).toEqual(["pending"]);

    const rt = runtime(await runtimeKey(), uid("rt"));
    const held = await createTestJob(learner);
    expect((await rt.lock(held.id)).status).toBe(200);
    await expect(cancelJob(held.id, failingAdmin())).rejects.toThrow(/audit write refused/);
    expect(await jobRow(held.id)).toMatchObject({ status: "locked", cancelRequested: false });
    await rt.fail(held.id, 1, "INVALID_SNAPSHOT", "x");
  });
});

describe("re-run", () => {
  it("writes one row when it creates the job; a repeat creates nothing and writes nothing", async () => {
    const by = admin();
    const source = await failedJob();
    const first = await rerunJob(source, by);
    const again = await rerunJob(source, by);
    expect([first.created, again.created, again.job.id]).toEqual([true, false, first.job.id]);
    expect(await audits(by.id)).toEqual([
      { action: "job.rerun", count: 1, scope: { jobId: source, newJobId: first.job.id } },
    ]);
  });

  it("a failed audit write leaves no new job", async () => {
    const source = await failedJob();
    await expect(rerunJob(source, failingAdmin())).rejects.toThrow(/audit write refused/);
    expect(await db().aiRuntimeJob.count({ where: { retriedFromJobId: source } })).toBe(0);
  });

  it("a bulk re-run writes its final count only, not a row per job", async () => {
    const by = admin();
    const sources = [await failedJob(), await failedJob()];
    const run = await startBulkRun("rerun", { ids: sources }, 2, by.id);
    expect(await processBulkRun(run.id)).toBe("done");
    const rows = await audits(by.id);
    expect(rows.map((r) => [r.action, r.count])).toEqual([["jobs.bulk_rerun", 2]]);
  });
});

describe("Runtime keys", () => {
  it("create and revoke each write one row in their transaction; a second revoke writes none", async () => {
    const by = uid("admin");
    const key = await createRuntimeKey(uid("k"), by);
    await revokeRuntimeKey(key.id, by);
    await revokeRuntimeKey(key.id, by);
    const rows = await audits(by);
    expect(rows).toEqual([
      {
        action: "runtime_key.create",
        count: 1,
        scope: { keyId: key.id, name: key.name, prefix: key.prefix, jobTypes: [], mayReceiveLearnerKeys: false },
      },
      { action: "runtime_key.revoke", count: 1, scope: { keyId: key.id, leasesEnded: 0 } },
    ]);
    expect(JSON.stringify(rows)).not.toContain(key.key);
  });

  it("a failed audit write leaves no key, and a key not revoked", async () => {
    const name = uid("k");
    await expect(createRuntimeKey(name, uid("audit-fails"))).rejects.toThrow(/audit write refused/);
    expect(await db().runtimeApiKey.count({ where: { name } })).toBe(0);

    const key = await createRuntimeKey(uid("k"), uid("admin"));
    await expect(revokeRuntimeKey(key.id, uid("audit-fails"))).rejects.toThrow(/audit write refused/);
    expect((await db().runtimeApiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).toBeNull();
    await expect(verifyRuntimeKey(`Bearer ${key.key}`)).resolves.toMatchObject({ keyId: key.id });
  });

  it(
    "the runtime-key command writes one, as the CLI actor",
    async () => {
      const name = uid("cli-key");
      const out = await runScript("scripts/create-runtime-key.ts", [
        name,
        "--job-types",
        "quiz_generation",
        "--learner-keys",
      ]);
      expect(out.status).toBe(0);
      const key = out.stdout.trim().split("\n").at(-1)!;
      const { keyId, scope } = await verifyRuntimeKey(`Bearer ${key}`);
      expect(scope).toEqual({ jobTypes: ["quiz_generation"], mayReceiveLearnerKeys: true });
      const rows = await db().adminAuditLog.findMany({ where: { actorId: CLI_ACTOR, action: "runtime_key.create" } });
      expect(rows.map((r) => r.scope)).toContainEqual(
        expect.objectContaining({ keyId, name, jobTypes: ["quiz_generation"], mayReceiveLearnerKeys: true }),
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
