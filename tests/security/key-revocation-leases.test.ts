import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { setCredential } from "@/server/credentials";
import { getJobFeed } from "@/server/events/job-feed";
import { getJobWaiters } from "@/server/events/job-waiters";
import { claimJobs, claimStatement, heartbeat } from "@/server/jobs/lease";
import { FULL_SCOPE, createRuntimeKey, revokeRuntimeKey, setRuntimeKeyScope } from "@/server/runtime-keys";
import type { JobType } from "@/server/generated/prisma/enums";
import { createLearner, createTestJob, jobRow, uid, type Learner } from "../helpers/factories";
import { releaseJobsOf } from "../helpers/release-jobs";
import { eventually, startApiServer } from "../runtime/api-server";

/**
 * docs/contract.md#consent-credentials-and-cancellation: from the moment a key's revocation commits, no request made with it — one parked in a
 * long poll included — is handed a job or a learner's data, and its held leases are lost; a scope
 * change applies the same way to parked polls and held leases. Over real HTTP, with the races held
 * in place by the key row's own locks.
 */
let api: Awaited<ReturnType<typeof startApiServer>>;
const learners: Learner[] = [];

beforeAll(async () => {
  api = await startApiServer();
  await eventually("LISTEN connection up", async () => getJobFeed().connected, 10_000);
});
// Claims here take every pending job of a type: each test leaves none of its own behind.
afterEach(() => releaseJobsOf(learners.splice(0)));
afterAll(() => api.close());

async function learner() {
  const l = await createLearner();
  learners.push(l);
  return l;
}

async function post(key: string, endpoint: string, body: Record<string, unknown>) {
  const res = await fetch(`${api.url}/internal/runtime/jobs/${endpoint}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const claim = (key: string, capabilities: JobType[], extra: Record<string, unknown> = {}) =>
  post(key, "poll", { runtimeInstanceId: uid("rt"), capabilities, claim: true, limit: 10, ...extra });

const claimedIds = (res: { body: { jobs?: { job: { id: string } }[] } }) => (res.body.jobs ?? []).map((j) => j.job.id);

/** Parks a claiming long poll; resolves (with its answer to come) once its waiter is registered. */
async function park(key: string, capabilities: JobType[]) {
  const before = getJobWaiters().size;
  const answer = claim(key, capabilities, { waitMs: 15_000 });
  await eventually("the poll is parked", async () => getJobWaiters().size > before, 10_000);
  return { answer };
}

/** A claim of weak_point_analysis jobs under key `id` with its full scopes, as a request authenticated before would make it. */
const claimInput = (id: string) => ({
  runtimeInstanceId: uid("rt"),
  keyId: id,
  scope: FULL_SCOPE,
  capabilities: ["weak_point_analysis" as const],
  limit: 10,
});

/** A backend waiting for a row lock on the key table: the race is held there. */
const keyLockWaiter = () =>
  eventually(
    "a statement waits for the key row's lock",
    async () => {
      const rows = await getDb().$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`;
      return rows[0]!.n > 0;
    },
    10_000,
  );

describe("a parked long poll and its key", () => {
  it("revoked while the poll waits: the poll answers 401 without the job, which stays pending for the next Runtime", async () => {
    const l = await learner();
    const { id, key } = await createRuntimeKey(uid("parked"), undefined, FULL_SCOPE);
    const { answer } = await park(key, ["next_action_planning"]);
    await revokeRuntimeKey(id);
    const job = await createTestJob(l, "next_action_planning");
    const res = await answer;
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
    expect(JSON.stringify(res.body)).not.toContain(job.id);
    expect((await jobRow(job.id)).status).toBe("pending");

    const next = await createRuntimeKey(uid("next"), undefined, FULL_SCOPE);
    expect(claimedIds(await claim(next.key, ["next_action_planning"]))).toEqual([job.id]);
  });

  it("a type removed from its scopes while it waits: that type's job is not handed to it, other types still are", async () => {
    const l = await learner();
    const { id, key } = await createRuntimeKey(uid("narrowed"), undefined, FULL_SCOPE);
    const { answer } = await park(key, ["quiz_generation", "flashcard_generation"]);
    await setRuntimeKeyScope(id, { jobTypes: ["flashcard_generation"] });
    const quiz = await createTestJob(l, "quiz_generation", { params: { count: 3 } });
    // The quiz job woke the poll (or would have): it is passed by. A flashcard job is taken.
    const cards = await createTestJob(l, "flashcard_generation");
    const res = await answer;
    expect(res.status).toBe(200);
    expect(claimedIds(res)).toEqual([cards.id]);
    expect((await jobRow(quiz.id)).status).toBe("pending");
  });

  it("a learner-key scope removed while it waits: the learner's job and key are not handed to it", async () => {
    const l = await learner();
    await setCredential(l.user.id, "sk-parked-learner-0123456789");
    const { id, key } = await createRuntimeKey(uid("no-learner-keys"), undefined, FULL_SCOPE);
    const { answer } = await park(key, ["learning_state_analysis"]);
    await setRuntimeKeyScope(id, { mayReceiveLearnerKeys: false });
    const own = await createTestJob(l, "learning_state_analysis", { apiKeyMode: "user_deepseek_key" });
    const platform = await createTestJob(l, "learning_state_analysis", { apiKeyMode: "platform_key" });
    const res = await answer;
    expect(claimedIds(res)).toEqual([platform.id]);
    expect(JSON.stringify(res.body)).not.toContain("sk-parked-learner");
    expect((await jobRow(own.id)).status).toBe("pending");
  });
});

describe("the claim statement and a revocation, ordered by the key row's lock", () => {
  it("a revocation holding the key row: a claim made under the key (authenticated before) waits, then takes nothing", async () => {
    const l = await learner();
    const { id } = await createRuntimeKey(uid("held-revoke"), undefined, FULL_SCOPE);
    const job = await createTestJob(l, "weak_point_analysis");
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let holding = false;
    // What revokeRuntimeKey does first, held open: the row locked FOR UPDATE and revokedAt set.
    const revoke = getDb().$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM "RuntimeApiKey" WHERE id = ${id} FOR UPDATE`;
        await tx.$executeRaw`UPDATE "RuntimeApiKey" SET "revokedAt" = now() WHERE id = ${id}`;
        holding = true;
        await gate;
      },
      { timeout: 30_000 },
    );
    await eventually("the revocation holds the key row", async () => holding, 10_000);
    const claimed = claimJobs(claimInput(id));
    await keyLockWaiter();
    release();
    await revoke;
    expect((await claimed).map((c) => c.job.id)).toEqual([]);
    expect((await jobRow(job.id)).status).toBe("pending");
  });

  it("a claim holding the key row: the revocation waits for it, then ends the lease it took", async () => {
    const l = await learner();
    const { id } = await createRuntimeKey(uid("held-claim"), undefined, FULL_SCOPE);
    const job = await createTestJob(l, "weak_point_analysis");
    const input = claimInput(id);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let took: string[] = [];
    const claim = getDb().$transaction(
      async (tx) => {
        took = (await tx.$queryRaw<{ id: string }[]>(claimStatement(input, new Date()))).map((r) => r.id);
        await gate;
      },
      { timeout: 30_000 },
    );
    await eventually("the claim holds the job", async () => took.length > 0, 10_000);
    expect(took).toEqual([job.id]);
    const revoked = revokeRuntimeKey(id);
    await keyLockWaiter();
    release();
    await claim;
    await revoked;
    const row = await jobRow(job.id);
    expect(row).toMatchObject({ status: "pending", lockedBy: null, retryCount: 0, errorCode: "LEASE_REVOKED" });
    expect(row.events.at(-1)).toMatchObject({ fromStatus: "locked", toStatus: "pending", actorType: "admin" });
  });

  it("claims racing revocations: once a revocation has committed, no job is held under the key", async () => {
    const l = await learner();
    const held: number[] = [];
    for (let round = 0; round < 20; round++) {
      const { id } = await createRuntimeKey(uid("race"), undefined, FULL_SCOPE);
      await createTestJob(l, "weak_point_analysis");
      const input = claimInput(id);
      await Promise.all([claimJobs(input), revokeRuntimeKey(id), claimJobs(input)]);
      const n = await getDb().aiRuntimeJob.count({
        where: { lockedByKeyId: id, status: { in: ["locked", "running"] } },
      });
      if (n) held.push(round);
    }
    expect(held).toEqual([]);
  });
});

describe("held leases and their key", () => {
  async function holding(scope = FULL_SCOPE) {
    const l = await learner();
    await setCredential(l.user.id, "sk-held-learner-0123456789");
    const k = await createRuntimeKey(uid("holder"), undefined, scope);
    const own = await createTestJob(l, "weak_point_analysis", { apiKeyMode: "user_deepseek_key" });
    const quiz = await createTestJob(l, "quiz_generation", { params: { count: 3 } });
    const cards = await createTestJob(l, "flashcard_generation");
    const rt = uid("holder-rt");
    const res = await post(k.key, "poll", {
      runtimeInstanceId: rt,
      capabilities: ["weak_point_analysis", "quiz_generation", "flashcard_generation"],
      claim: true,
      limit: 10,
    });
    expect(claimedIds(res).sort()).toEqual([own.id, quiz.id, cards.id].sort());
    const beat = (jobId: string) => post(k.key, `${jobId}/heartbeat`, { runtimeInstanceId: rt, attemptNo: 1 });
    for (const j of [own, quiz, cards]) expect((await beat(j.id)).status).toBe(200);
    return { ...k, rt, own, quiz, cards, beat };
  }

  it("revoked: every lease it holds ends at once, the jobs are pending for other Runtimes, a heartbeat is refused", async () => {
    const h = await holding();
    await revokeRuntimeKey(h.id);
    for (const j of [h.own, h.quiz, h.cards]) {
      expect(await jobRow(j.id)).toMatchObject({ status: "pending", lockedBy: null, retryCount: 0 });
      expect((await h.beat(j.id)).status).toBe(401);
      // A heartbeat that passed authentication before the revoke committed finds the lease gone.
      await expect(heartbeat(j.id, { runtimeInstanceId: h.rt, keyId: h.id, attemptNo: 1 })).rejects.toMatchObject({
        code: "LOCK_LOST",
      });
    }
    const audit = await getDb().adminAuditLog.findFirstOrThrow({
      where: { action: "runtime_key.revoke", scope: { path: ["keyId"], equals: h.id } },
    });
    expect(audit.scope).toMatchObject({ leasesEnded: 3 });
  });

  it("its learner-key scope removed: the lease on the learner's key is lost on the next heartbeat, the others go on", async () => {
    const h = await holding();
    await setRuntimeKeyScope(h.id, { mayReceiveLearnerKeys: false });
    const lost = await h.beat(h.own.id);
    expect([lost.status, lost.body.error.code]).toEqual([409, "LOCK_LOST"]);
    expect(await jobRow(h.own.id)).toMatchObject({ status: "pending", lockedBy: null, errorCode: "LEASE_REVOKED" });
    for (const j of [h.quiz, h.cards]) expect((await h.beat(j.id)).status).toBe(200);
    // The next Runtime with the scope takes the job over, with the learner's key.
    const next = await createRuntimeKey(uid("next"), undefined, FULL_SCOPE);
    const res = await claim(next.key, ["weak_point_analysis"]);
    expect(claimedIds(res)).toEqual([h.own.id]);
    expect(res.body.jobs[0].job.model.apiKey).toBe("sk-held-learner-0123456789");
  });

  it("a job type removed from its scopes: that lease is lost on the next heartbeat, the others go on", async () => {
    const h = await holding();
    await setRuntimeKeyScope(h.id, { jobTypes: ["weak_point_analysis", "flashcard_generation"] });
    const lost = await h.beat(h.quiz.id);
    expect([lost.status, lost.body.error.code]).toEqual([409, "LOCK_LOST"]);
    expect((await jobRow(h.quiz.id)).status).toBe("pending");
    for (const j of [h.own, h.cards]) expect((await h.beat(j.id)).status).toBe(200);
  });
});
