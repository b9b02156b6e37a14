import { describe, expect, it } from "vitest";
import { ERASURE_COUNT_KINDS } from "@/server/learners/erasure-counts";
import { getDb } from "@/server/db";
import { Prisma } from "@/server/generated/prisma/client";
import { setQuotaLimit } from "@/server/admin/quotas";
import { startBulkRun, previewBulk } from "@/server/admin/bulk";
import { cancelJob } from "@/server/jobs/cancel";
import { recordDelivery } from "@/server/notifications/deliveries";
import { signInCounterKeysOf } from "@/server/auth/sign-in-throttle";
import { eraseLearner } from "@/server/learners/erase";
import { getCosts } from "@/server/admin/costs";
import { createInvitation } from "@/server/account/invitations";
import { createServiceKey } from "@/server/platform/service-keys";
import { recordActivity } from "@/server/platform/activity";
import { exportLearnerData } from "@/server/learners/export";
import { setFlashcardMark } from "@/server/learning/flashcard-marks";
import { setNextActionTick } from "@/server/learning/next-action-ticks";
import { callerAs, setPassword, signIn, signedInCookie } from "../helpers/auth";
import { NOT_A_PARTITION } from "../helpers/partitions";
import { createLearner, createTestJob, runtimeKey, uid } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { validOutput } from "../helpers/outputs";
import { runtime } from "../helpers/runtime-api";
import { jobIn } from "../helpers/states";

/**
 * Erasure (docs/contract.md#learners-and-their-data): a learner with data in every table that can hold learner data is erased,
 * and then no row of any table, in any text or JSON column, still names them.
 */

// Finished jobs owe a webhook (a WebhookDelivery row per job), as in production; no delivery loop
// runs in this file, so nothing is sent to this address.
process.env.JOB_WEBHOOK_URL = "http://127.0.0.1:9/webhook";
process.env.JOB_WEBHOOK_SECRET = "whsec_erase";

/** Every row of every public table whose text, array or JSON columns contain `needle` (case-insensitive). */
async function rowsNaming(needle: string) {
  const db = getDb();
  const columns = await db.$queryRaw<{ table_name: string; column_name: string }[]>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' AND ${Prisma.raw(NOT_A_PARTITION)}
      AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`;
  const hits: string[] = [];
  for (const c of columns) {
    const [row] = await db.$queryRaw<{ n: number }[]>(
      Prisma.sql`SELECT count(*)::int AS n FROM ${Prisma.raw(`"${c.table_name}"`)}
        WHERE strpos(lower(${Prisma.raw(`"${c.column_name}"`)}::text), ${needle.toLowerCase()}) > 0`,
    );
    if (row!.n > 0) hits.push(`${c.table_name}.${c.column_name}: ${row!.n}`);
  }
  return { hits, columns: columns.length };
}

/** Tables that hold no row at all: a fixture that misses one would make the scan prove nothing there. */
async function emptyTables() {
  const tables = await getDb().$queryRaw<{ table_name: string }[]>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'
      AND ${Prisma.raw(NOT_A_PARTITION)}`;
  const empty: string[] = [];
  for (const t of tables) {
    const [row] = await getDb().$queryRaw<{ n: number }[]>(
      Prisma.sql`SELECT count(*)::int AS n FROM ${Prisma.raw(`"${t.table_name}"`)}`,
    );
    if (row!.n === 0) empty.push(t.table_name);
  }
  return empty;
}

async function adminUser() {
  const { user } = await createLearner({ role: "admin" });
  return user;
}

/** A learner with something in every table a learner's data can reach. */
async function learnerWithEverything(admin: { id: string }) {
  const learner = await createLearner();
  const me = learner.user.id;
  const rt = runtime(await runtimeKey(), uid("inst"));
  // An invitation to their email sent before they had a password (it names only the email).
  await createInvitation(learner.user.email, admin.id);
  // Sign-in methods and a session (with the client's address), then a failed sign-in's counters.
  await setPassword(me, "erase-me-password-1");
  await signedInCookie(learner.user.email, "erase-me-password-1");
  expect((await signIn(learner.user.email, "wrong-password-000")).status).toBeGreaterThanOrEqual(400);
  await getDb().verification.create({
    data: {
      id: uid("ver"),
      identifier: `reset-password:${learner.user.email}`,
      value: me,
      expiresAt: new Date(Date.now() + 3_600_000),
    },
  });
  // The platform API: the platform's ids on the learner, a material and a knowledge point, and
  // activity it sent (quiz attempts and study sessions carrying its ids), under a service key;
  // the ids contain the learner's own, so the scan for it below finds them too.
  await createServiceKey(uid("platform"), ["activity:write"], admin.id);
  await getDb().user.update({ where: { id: me }, data: { externalId: `ext-${me}` } });
  await getDb().material.update({
    where: { id: learner.material.id },
    data: { externalId: `ext-${learner.material.id}` },
  });
  const kpExt = `ext-kp-${me}`;
  await getDb().knowledgePoint.update({ where: { id: learner.knowledgePoints[0]!.id }, data: { externalId: kpExt } });
  await recordActivity(me, {
    quizAttempts: [
      {
        externalId: `ext-qa-${me}`,
        knowledgePointExternalId: kpExt,
        correct: true,
        answeredAt: new Date().toISOString(),
      },
    ],
    studySessions: [{ externalId: `ext-ss-${me}`, startedAt: new Date().toISOString(), minutes: 12 }],
  });
  const caller = callerAs(learner.user);
  await caller.credentials.set({ apiKey: "sk-erase-0123456789abcdef" });
  await getDb().reviewCardTombstone.create({ data: { userId: me, sourceKey: `flashcard_generation:${me}` } });
  // An answer in the learner's own words, waiting for their mark.
  await getDb().pendingAnswer.create({
    data: {
      userId: me,
      knowledgePointId: learner.knowledgePoints[0]!.id,
      sourceJobId: `quiz-of-${me}`,
      itemIndex: 0,
      question: "Explain it in your own words.",
      response: "In my own words",
      answeredAt: new Date(),
    },
  });
  // Jobs in every status the protocol reaches, with a result, a rejection and usage.
  const jobs: Record<string, string> = {};
  for (const status of ["pending", "locked", "running", "succeeded", "failed", "cancelled"] as const)
    jobs[status] = (await jobIn(status, learner, rt)).id;
  const rejected = await createTestJob(learner, "weak_point_analysis");
  expect((await rt.lock(rejected.id)).status).toBe(200);
  const fail = await rt.fail(rejected.id, 1, "INVALID_SCHEMA");
  expect(fail.status).toBe(200);
  await getDb().jobRejection.create({
    data: {
      jobId: rejected.id,
      attemptNo: 1,
      output: "{}",
      outputBytes: 2,
      violations: [],
      rules: ["schema.invalid_type"],
    },
  });
  const withUsage = await createTestJob(learner, "learning_state_analysis");
  const lock = await rt.lock(withUsage.id);
  const kps = learner.knowledgePoints.map((k) => k.id);
  const res = await rt.result(withUsage.id, lock.body.job.attemptNo, validOutput("learning_state_analysis", kps), {
    usage: { promptTokens: 100, completionTokens: 50, durationMs: 900, provider: "deepseek", model: "deepseek-chat" },
  });
  expect(res.status).toBe(200);
  // Usage on a day that is over, folded into the cost panel's day sums (per type: anonymous; per learner: theirs).
  await getDb().jobUsage.create({
    data: {
      jobId: withUsage.id,
      attemptNo: 99,
      userId: me,
      jobType: "learning_state_analysis",
      apiKeyMode: "platform_key",
      promptTokens: 10,
      completionTokens: 5,
      outcome: "succeeded",
      createdAt: new Date(Date.now() - 3 * 86_400_000),
    },
  });
  // And in hours no closed day covers, folded into the hour sums: two hours ago (today, unless it
  // is just after midnight) and an hour into the top learners' week (its first part-day then).
  for (const [attemptNo, ago] of [
    [98, 2 * 3_600_000],
    [97, 7 * 86_400_000 - 3_600_000],
  ] as const)
    await getDb().jobUsage.create({
      data: {
        jobId: withUsage.id,
        attemptNo,
        userId: me,
        jobType: "learning_state_analysis",
        apiKeyMode: "platform_key",
        promptTokens: 10,
        completionTokens: 5,
        outcome: "succeeded",
        createdAt: new Date(Date.now() - ago),
      },
    });
  await getCosts();
  expect(await getDb().usageDayLearner.count({ where: { userId: me } })).toBeGreaterThan(0);
  expect(await getDb().usageHourLearner.count({ where: { userId: me } })).toBeGreaterThan(0);
  // A learner's own cancel (their id on a JobEvent), flashcard marks, next-action ticks, a review session.
  await cancelJob((await createTestJob(learner)).id, { type: "learner", id: me }, { ownerId: me });
  const deck = await succeededJob(learner, "flashcard_generation", { count: 4 });
  await setFlashcardMark(me, deck.id, 0, true);
  // The deck's cards in the review schedule (ReviewDeck), one of them rated (ReviewCard, ReviewLog).
  await caller.review.addDeck({ jobId: deck.id });
  await getDb().digestSend.create({ data: { userId: me, day: "2026-12-01", status: "sent", attempts: 1 } });
  const review = await caller.review.queue();
  await caller.review.rate({ cardId: review.cards[0]!.id, rating: "good", reps: 0 });
  const plan = await succeededJob(learner, "next_action_planning");
  await setNextActionTick(me, plan.id, 0, true);
  await caller.analyses.trigger({
    target: { type: "material", id: learner.material.id },
    jobTypes: ["quiz_generation"],
  });
  await recordDelivery(jobs.succeeded!, "succeeded");
  // An admin's override (audited with the learner's id), export (audited), and a bulk run scoped to them.
  await setQuotaLimit({ actorId: admin.id, userId: me, metric: "jobs", period: "day", allowed: 500 });
  await exportLearnerData(me, { type: "admin", id: admin.id });
  await exportLearnerData(me, { type: "learner", id: me });
  const scope = { filter: { user: learner.user.email, status: ["failed" as const] } };
  const preview = await previewBulk("rerun", scope);
  await startBulkRun("rerun", scope, preview.count, admin.id);
  return { learner, jobs, rt };
}

describe("erasure", () => {
  it("leaves no row in any table naming the learner (id, email, sign-in key), keeps the other learner and an anonymous audit row", async () => {
    const admin = await adminUser();
    const other = await createLearner();
    const otherJob = (await createTestJob(other)).id;
    const { learner, jobs } = await learnerWithEverything(admin);
    const me = learner.user.id;
    const email = learner.user.email;

    // Every table holds rows now (else the scan below would prove nothing about it); the rollup
    // tables are filled by the rollup loop, which this file does not run.
    const empty = await emptyTables();
    expect(empty.sort()).toEqual(
      ["ConsoleRollupState", "JobCountRollup", "JobTimeRollup", "RuntimeHourRollup", "RuntimeInstance"].filter((t) =>
        empty.includes(t),
      ),
    );
    expect((await rowsNaming(me)).hits.length).toBeGreaterThan(10);
    expect((await rowsNaming(email)).hits.length).toBeGreaterThan(1);

    const erased = await eraseLearner(me, { type: "admin", id: admin.id });
    expect(erased.erasureId).toMatch(/^erasure_/);
    expect(erased.counts.cancelledInFlight).toBe(4); // pending, locked, running, and the triggered quiz
    expect(erased.cancelledJobIds).toHaveLength(4);
    // Every kind the answer's closed `counts` names, and no other.
    expect(Object.keys(erased.counts).sort()).toEqual([...ERASURE_COUNT_KINDS].sort());
    expect(erased.counts.jobs).toBeGreaterThanOrEqual(12);
    expect(erased.counts.sessions).toBe(1);
    expect(erased.counts.signInCounters).toBeGreaterThanOrEqual(1);

    const digest = signInCounterKeysOf(email).account.slice("account:".length);
    for (const needle of [me, email, digest, learner.material.id, jobs.running!]) {
      const scan = await rowsNaming(needle);
      expect(scan.columns).toBeGreaterThan(50);
      expect(scan.hits, needle).toEqual([]);
    }
    // The other learner is untouched; the audit keeps an erasure row with no personal data.
    expect(await getDb().aiRuntimeJob.count({ where: { userId: other.user.id } })).toBe(1);
    expect((await getDb().aiRuntimeJob.findUniqueOrThrow({ where: { id: otherJob } })).status).toBe("pending");
    const audit = await getDb().adminAuditLog.findMany({ where: { action: "learner.erase", actorId: admin.id } });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actorId).toBe(admin.id);
    expect(audit[0]!.scope).toMatchObject({ erasureId: erased.erasureId, by: "admin" });
    // Earlier audit rows that named the learner name the erasure instead.
    const exports = await getDb().adminAuditLog.findMany({ where: { action: "learner.export" } });
    expect(exports.map((a) => a.scope)).toEqual([
      { userId: erased.erasureId, by: "admin" },
      { userId: erased.erasureId, by: "learner" },
    ]);
    expect(exports[1]!.actorId).toBe(erased.erasureId);
  }, 60_000);

  it("a Runtime holding a job of an erased learner gets a clean 404 on heartbeat, result and fail", async () => {
    const learner = await createLearner();
    const rt = runtime(await runtimeKey(), uid("inst"));
    const held = await jobIn("running", learner, rt);
    const locked = await jobIn("locked", learner, rt);
    await eraseLearner(learner.user.id, { type: "learner", id: learner.user.id });
    const kps = learner.knowledgePoints.map((k) => k.id);
    for (const answer of [
      await rt.heartbeat(held.id, 1, { stage: "model_inference", progress: 50 }),
      await rt.result(held.id, 1, validOutput("weak_point_analysis", kps)),
      await rt.fail(locked.id, 1, "NETWORK_ERROR"),
      await rt.heartbeat(locked.id, 1),
    ]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(404);
      expect(answer.body.error.code).toBe("JOB_NOT_FOUND");
    }
    // The self-erasure's audit row names nobody.
    const [row] = await getDb().adminAuditLog.findMany({ where: { action: "learner.erase", actorId: "learner:self" } });
    expect(row!.actorId).toBe("learner:self");
    expect(JSON.stringify({ ...row, id: String(row!.id) })).not.toContain(learner.user.id);
  });

  it("two concurrent erasures: one erases, the other is NOT_FOUND; export after erasure is NOT_FOUND", async () => {
    const learner = await createLearner();
    await createTestJob(learner);
    const actor = { type: "service" as const, id: "key_test" };
    const outcomes = await Promise.allSettled([
      eraseLearner(learner.user.id, actor),
      eraseLearner(learner.user.id, actor),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason.code).toBe("NOT_FOUND");
    await expect(exportLearnerData(learner.user.id, actor)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(eraseLearner(learner.user.id, actor)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await getDb().adminAuditLog.count({ where: { action: "learner.erase", actorId: "service:key_test" } })).toBe(
      1,
    );
  });

  it("hostile ids are NOT_FOUND, admins are not erased, and nothing is written", async () => {
    const admin = await adminUser();
    const before = await getDb().adminAuditLog.count();
    for (const id of ["\u0000", "\ud800x", "toString", "__proto__", "x".repeat(1000), ""]) {
      await expect(eraseLearner(id, { type: "admin", id: admin.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(exportLearnerData(id, { type: "admin", id: admin.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
    await expect(eraseLearner(admin.id, { type: "admin", id: admin.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await getDb().user.count({ where: { id: admin.id } })).toBe(1);
    expect(await getDb().adminAuditLog.count()).toBe(before);
  });
});
