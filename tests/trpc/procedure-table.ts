import { createServiceKey } from "@/server/platform/service-keys";
import { hashPassword } from "better-auth/crypto";
import { startBulkRun } from "@/server/admin/bulk";
import { getDb } from "@/server/db";
import { cancelJob } from "@/server/jobs/cancel";
import { createRuntimeKey } from "@/server/runtime-keys";
import { createInvitation } from "@/server/account/invitations";
import { createLearner, createTestJob, uid, type Learner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { addDeck } from "@/server/review/decks";

/**
 * Every tRPC procedure with who may call it and how to build a valid input for a caller. The
 * matrix and the secrets scan iterate the router's own procedure map and look each path up
 * here, so a procedure added without an entry fails both.
 */
/** "user": any signed-in account with its own password (learners, and admins on their own learner page). */
export type Access = "public" | "user" | "admin";
export type World = { a: Learner; b: Learner; admin: Learner };

/** An answer in the learner's own words waiting for their mark, on a quiz of theirs. */
async function pendingAnswerOf(me: Learner) {
  const job = await succeededJob(me, "quiz_generation", { count: 1 });
  return getDb().pendingAnswer.create({
    data: {
      userId: me.user.id,
      knowledgePointId: me.knowledgePoints[0]!.id,
      sourceJobId: job.id,
      itemIndex: 0,
      question: "Explain it in your own words.",
      response: "In my words",
      answeredAt: new Date(),
    },
  });
}

export type Entry = {
  access: Access;
  /** A valid input for `me` acting on their own data (admin procedures: on learner A's data). */
  input: (w: World, me: Learner) => Promise<unknown> | unknown;
  /**
   * Learner procedures that name a resource: learner B names one of A's. The call must fail
   * with NOT_FOUND (never FORBIDDEN, which would confirm the id exists) and leave A's data alone.
   */
  foreign?: (w: World) => Promise<unknown>;
  /**
   * Allowed callers get past authorization but this input is refused with this code by design
   * (account.erase with a wrong typed email: the matrix must not erase its own world).
   */
  refusedWith?: string;
};

const jobOf = (l: Learner) => createTestJob(l);

/** A finished flashcard deck of the learner's with fronts of its own, not yet added to Review. */
async function deckOf(l: Learner) {
  const flashcards = [1, 2].map(() => ({
    front: uid("front"),
    back: "Back",
    knowledgePointId: l.knowledgePoints[0]!.id,
    tags: ["bio"],
  }));
  return (await succeededJob(l, "flashcard_generation", { count: 2 }, { flashcards })).id;
}

/** A card due in the learner's reviews: a finished flashcard deck the learner added. */
async function dueCard(l: Learner) {
  const jobId = await deckOf(l);
  await addDeck(l.user.id, jobId);
  const card = await getDb().reviewCard.findFirstOrThrow({ where: { userId: l.user.id, sourceJobId: jobId } });
  return card.id;
}

export const PROCEDURES: Record<string, Entry> = {
  "me.get": { access: "public", input: () => undefined },
  "account.changePassword": {
    access: "user",
    input: async (_w, me) => {
      const current = uid("current-password");
      const password = await hashPassword(current);
      const where = { providerId_accountId: { providerId: "credential", accountId: me.user.id } };
      await getDb().account.upsert({
        where,
        create: { id: uid("acct"), providerId: "credential", accountId: me.user.id, userId: me.user.id, password },
        update: { password },
      });
      return { currentPassword: current, newPassword: uid("new-password") };
    },
  },
  "account.setLocale": { access: "user", input: () => ({ locale: "zh-CN" }) },

  "jobs.create": {
    access: "user",
    input: (_w, me) => ({
      jobType: "learning_state_analysis",
      target: { type: "user", id: me.user.id },
      idempotencyKey: uid("k"),
    }),
    // B names A's material as the target: no snapshot of A's data may be taken for B.
    foreign: async (w) => ({ jobType: "weak_point_analysis", target: { type: "material", id: w.a.material.id } }),
  },
  "jobs.list": { access: "user", input: () => ({}) },
  "jobs.get": {
    access: "user",
    input: async (_w, me) => ({ jobId: (await jobOf(me)).id }),
    foreign: async (w) => ({ jobId: (await jobOf(w.a)).id }),
  },
  "jobs.cancel": {
    access: "user",
    input: async (_w, me) => ({ jobId: (await jobOf(me)).id }),
    foreign: async (w) => ({ jobId: (await jobOf(w.a)).id }),
  },
  "snapshots.get": {
    access: "user",
    input: async (_w, me) => ({ snapshotId: (await jobOf(me)).snapshotId }),
    foreign: async (w) => ({ snapshotId: (await jobOf(w.a)).snapshotId }),
  },
  "consent.get": { access: "user", input: () => undefined },
  "consent.set": { access: "user", input: () => ({ granted: true }) },
  "consent.setApiKeyMode": { access: "user", input: () => ({ apiKeyMode: "platform_key" }) },
  "credentials.get": { access: "user", input: () => undefined },
  "credentials.set": { access: "user", input: () => ({ apiKey: `sk-${uid("deepseek")}` }) },
  "credentials.delete": { access: "user", input: () => undefined },
  // Learner page; cross-learner cases are in tests/learning/learner-api.test.ts.
  "targets.list": { access: "user", input: () => undefined },
  "analyses.trigger": {
    access: "user",
    input: (_w, me) => ({
      target: { type: "material", id: me.material.id },
      jobTypes: ["flashcard_generation"],
      params: { flashcard_generation: { count: 3 } },
    }),
  },
  "quiz.submit": {
    access: "user",
    input: async (_w, me) => ({
      jobId: (await succeededJob(me, "quiz_generation", { count: 1 })).id,
      answers: [{ index: 0, response: "B" }],
    }),
  },
  "quiz.mark": {
    access: "user",
    input: async (_w, me) => ({ markId: (await pendingAnswerOf(me)).id, correct: true }),
    foreign: async (w) => ({ markId: (await pendingAnswerOf(w.a)).id, correct: true }),
  },
  "quiz.pending": {
    access: "user",
    input: () => ({}),
    foreign: async (w) => ({ jobId: (await pendingAnswerOf(w.a)).sourceJobId }),
  },
  "quiz.plays": {
    access: "user",
    input: async (_w, me) => ({ jobId: (await succeededJob(me, "quiz_generation", { count: 1 })).id }),
  },
  "flashcards.marks": {
    access: "user",
    input: async (_w, me) => ({ jobId: (await succeededJob(me, "flashcard_generation", { count: 2 })).id }),
  },
  "flashcards.setMark": {
    access: "user",
    input: async (_w, me) => ({
      jobId: (await succeededJob(me, "flashcard_generation", { count: 2 })).id,
      cardIndex: 1,
      known: true,
    }),
  },
  "flashcards.study": {
    access: "user",
    input: async (_w, me) => ({ jobId: (await succeededJob(me, "flashcard_generation", { count: 2 })).id }),
    foreign: async (w) => ({ jobId: (await succeededJob(w.a, "flashcard_generation", { count: 2 })).id }),
  },
  // Spaced repetition; more cases in tests/review/review.test.ts.
  "review.queue": {
    access: "user",
    input: (_w, me) => ({ materialId: me.material.id, timeZone: "Asia/Shanghai" }),
    foreign: async (w) => ({ materialId: w.a.material.id }),
  },
  "review.addDeck": {
    access: "user",
    input: async (_w, me) => ({ jobId: await deckOf(me) }),
    foreign: async (w) => ({ jobId: await deckOf(w.a) }),
  },
  "review.dismissDeck": {
    access: "user",
    input: async (_w, me) => ({ jobId: await deckOf(me) }),
    foreign: async (w) => ({ jobId: await deckOf(w.a) }),
  },
  "review.deck": {
    access: "user",
    input: async (_w, me) => ({ jobId: await deckOf(me) }),
    foreign: async (w) => ({ jobId: await deckOf(w.a) }),
  },
  "review.edit": {
    access: "user",
    input: async (_w, me) => ({ cardId: await dueCard(me), front: "Edited front", back: "Edited back" }),
    foreign: async (w) => ({ cardId: await dueCard(w.a), front: "Edited front", back: "Edited back" }),
  },
  "review.suspend": {
    access: "user",
    input: async (_w, me) => ({ cardId: await dueCard(me), suspended: true }),
    foreign: async (w) => ({ cardId: await dueCard(w.a), suspended: true }),
  },
  "review.bury": {
    access: "user",
    input: async (_w, me) => ({ cardId: await dueCard(me), buried: true, timeZone: "Asia/Shanghai" }),
    foreign: async (w) => ({ cardId: await dueCard(w.a), buried: true }),
  },
  "review.reset": {
    access: "user",
    input: async (_w, me) => ({ cardId: await dueCard(me) }),
    foreign: async (w) => ({ cardId: await dueCard(w.a) }),
  },
  "review.delete": {
    access: "user",
    input: async (_w, me) => ({ cardId: await dueCard(me) }),
    foreign: async (w) => ({ cardId: await dueCard(w.a) }),
  },
  "review.today": { access: "user", input: () => ({ timeZone: "Asia/Shanghai" }) },
  "account.digest": { access: "user", input: () => undefined },
  "account.setDigest": { access: "user", input: () => ({ optIn: false, hour: 8, timeZone: "Europe/Berlin" }) },
  "review.setLimits": { access: "user", input: () => ({ newPerDay: 20, reviewsPerDay: 200 }) },
  "review.rate": {
    access: "user",
    input: async (_w, me) => ({ cardId: await dueCard(me), rating: "good", reps: 0 }),
    foreign: async (w) => ({ cardId: await dueCard(w.a), rating: "good", reps: 0 }),
  },
  // My materials and data rights; more cross-learner cases in tests/learning/materials.test.ts.
  "materials.list": { access: "user", input: () => undefined },
  "materials.get": {
    access: "user",
    input: (_w, me) => ({ materialId: me.material.id }),
    foreign: async (w) => ({ materialId: w.a.material.id }),
  },
  "materials.create": {
    access: "user",
    input: () => ({ title: "Matrix", text: "Notes.", knowledgePoints: [{ title: "Topic" }] }),
  },
  "materials.update": {
    access: "user",
    input: (_w, me) => ({ materialId: me.material.id, title: "Photosynthesis" }),
    foreign: async (w) => ({ materialId: w.a.material.id, title: "Taken over" }),
  },
  "materials.delete": {
    access: "user",
    input: async (_w, me) => ({
      materialId: (await getDb().material.create({ data: { userId: me.user.id, title: "Gone", content: "x" } })).id,
    }),
    foreign: async (w) => ({ materialId: w.a.material.id }),
  },
  "materials.addKnowledgePoint": {
    access: "user",
    input: (_w, me) => ({ materialId: me.material.id, title: "Another topic" }),
    foreign: async (w) => ({ materialId: w.a.material.id, title: "Planted" }),
  },
  "materials.renameKnowledgePoint": {
    access: "user",
    input: (_w, me) => ({ knowledgePointId: me.knowledgePoints[0]!.id, title: me.knowledgePoints[0]!.title }),
    foreign: async (w) => ({ knowledgePointId: w.a.knowledgePoints[0]!.id, title: "Renamed by B" }),
  },
  "materials.deleteKnowledgePoint": {
    access: "user",
    input: async (_w, me) => ({
      knowledgePointId: (
        await getDb().knowledgePoint.create({
          data: { userId: me.user.id, materialId: me.material.id, title: "Gone", description: "" },
        })
      ).id,
    }),
    foreign: async (w) => ({ knowledgePointId: w.a.knowledgePoints[0]!.id }),
  },
  "materials.latestSuggestion": {
    access: "user",
    input: (_w, me) => ({ materialId: me.material.id }),
    foreign: async (w) => ({ materialId: w.a.material.id }),
  },
  "materials.proposals": {
    access: "user",
    input: async (_w, me) => ({ jobId: (await succeededJob(me, "knowledge_point_extraction")).id }),
    foreign: async (w) => ({ jobId: (await succeededJob(w.a, "knowledge_point_extraction")).id }),
  },
  "materials.acceptProposals": {
    access: "user",
    input: async (_w, me) => ({ jobId: (await succeededJob(me, "knowledge_point_extraction")).id, indexes: [0] }),
    foreign: async (w) => ({ jobId: (await succeededJob(w.a, "knowledge_point_extraction")).id, indexes: [0] }),
  },
  "account.erase": {
    access: "user",
    input: () => ({ confirmEmail: "not-my-email@example.test" }),
    refusedWith: "BAD_REQUEST",
  },
  "admin.learnerData.erase": {
    access: "admin",
    input: async () => {
      const doomed = await createLearner();
      return { userId: doomed.user.id, confirmEmail: doomed.user.email };
    },
  },
  // Learner progress; cross-learner cases are in tests/learning/progress.test.ts.
  "progress.history": { access: "user", input: () => ({ limit: 5 }) },
  "progress.mastery": { access: "user", input: () => undefined },
  "progress.ticks": {
    access: "user",
    input: async (_w, me) => ({ jobId: (await succeededJob(me, "next_action_planning")).id }),
  },
  "progress.setTick": {
    access: "user",
    input: async (_w, me) => ({
      jobId: (await succeededJob(me, "next_action_planning")).id,
      actionIndex: 0,
      done: true,
    }),
  },

  "admin.jobs.cancel": { access: "admin", input: async (w) => ({ jobId: (await jobOf(w.a)).id }) },
  "admin.jobs.rerun": {
    access: "admin",
    input: async (w) => {
      const job = await jobOf(w.a);
      await cancelJob(job.id, { type: "learner", id: w.a.user.id });
      return { jobId: job.id };
    },
  },
  "admin.runtimeKeys.create": { access: "admin", input: () => ({ name: uid("runtime") }) },
  "admin.runtimeKeys.list": { access: "admin", input: () => undefined },
  "admin.runtimeKeys.setScope": {
    access: "admin",
    input: async () => ({ id: (await createRuntimeKey(uid("scoped"))).id, jobTypes: ["quiz_generation"] }),
  },
  "admin.runtimeKeys.revoke": {
    access: "admin",
    input: async () => ({ id: (await createRuntimeKey(uid("runtime"))).id }),
  },
  "admin.serviceKeys.create": { access: "admin", input: () => ({ name: uid("service"), scopes: ["jobs:read"] }) },
  "admin.serviceKeys.list": { access: "admin", input: () => undefined },
  "admin.serviceKeys.revoke": {
    access: "admin",
    input: async () => ({ id: (await createServiceKey(uid("service"), ["jobs:read"], "test")).id }),
  },
  "admin.webhooks.list": { access: "admin", input: () => ({}) },
  // Learner accounts: invitations.
  "admin.learners.list": { access: "admin", input: () => ({ search: "example", page: 1, pageSize: 5 }) },
  "admin.learners.invite": { access: "admin", input: () => ({ email: `${uid("invitee")}@example.test` }) },
  "admin.learners.resend": {
    access: "admin",
    input: async () => ({
      invitationId: (await createInvitation(`${uid("invitee")}@example.test`, null)).invitationId,
    }),
  },
  "admin.learners.revoke": {
    access: "admin",
    input: async () => ({
      invitationId: (await createInvitation(`${uid("invitee")}@example.test`, null)).invitationId,
    }),
  },
  // Admin console.
  "admin.explorer.list": { access: "admin", input: () => ({}) },
  "admin.explorer.count": { access: "admin", input: (w) => ({ filter: { user: w.a.user.id } }) },
  "admin.explorer.detail": { access: "admin", input: async (w) => ({ jobId: (await jobOf(w.a)).id }) },
  "admin.explorer.readSource": { access: "admin", input: () => undefined },
  "admin.actions.setPriority": { access: "admin", input: async (w) => ({ jobId: (await jobOf(w.a)).id, priority: 5 }) },
  "admin.actions.bulkPreview": {
    access: "admin",
    input: async (w) => ({ action: "cancel", scope: { ids: [(await jobOf(w.a)).id] } }),
  },
  // Bulk runs act on learner B's job: a run finishes in the background (or is resumed by another test file's
  // scheduler tick), and learner A's rows are the fingerprint a refused call must leave unchanged.
  "admin.actions.bulkRun": {
    access: "admin",
    input: async (w) => ({ action: "cancel", scope: { ids: [(await jobOf(w.b)).id] }, expectedCount: 1 }),
  },
  "admin.monitor.overview": { access: "admin", input: () => ({ window: "1h" }) },
  // Alerts and background bulk runs.
  "admin.monitor.alerts": { access: "admin", input: () => undefined },
  "admin.monitor.costs": { access: "admin", input: () => undefined },
  "admin.actions.bulkStatus": {
    access: "admin",
    input: async (w) => ({
      id: (await startBulkRun("cancel", { ids: [(await jobOf(w.b)).id] }, 1, w.admin.user.id)).id,
    }),
  },
  "admin.actions.bulkRuns": { access: "admin", input: () => ({}) },
  "admin.actions.bulkCancel": {
    access: "admin",
    input: async (w) => ({
      id: (await startBulkRun("cancel", { ids: [(await jobOf(w.b)).id] }, 1, w.admin.user.id)).id,
    }),
  },
  "admin.actions.bulkPause": {
    access: "admin",
    input: async (w) => ({
      id: (await startBulkRun("cancel", { ids: [(await jobOf(w.b)).id] }, 1, w.admin.user.id)).id,
      paused: true,
    }),
  },
  "admin.actions.bulkStep": {
    access: "admin",
    input: async (w) => ({
      id: (await startBulkRun("cancel", { ids: [(await jobOf(w.b)).id] }, 1, w.admin.user.id, { paused: true })).id,
    }),
  },
  "admin.monitor.runtimes": { access: "admin", input: () => undefined },
  "admin.monitor.audit": { access: "admin", input: () => ({}) },
  // Quotas.
  "quota.get": { access: "user", input: () => undefined },
  "admin.quotas.get": { access: "admin", input: (w) => ({ user: w.a.user.email }) },
  "admin.quotas.setLimit": {
    access: "admin",
    input: (w) => ({ userId: w.a.user.id, metric: "jobs", period: "hour", allowed: null }),
  },
};

export async function createWorld(): Promise<World> {
  const [a, b, admin] = await Promise.all([createLearner(), createLearner(), createLearner({ role: "admin" })]);
  return { a, b, admin };
}

/** Everything of learner A's that a refused call must leave alone, plus the Runtime keys. */
export async function fingerprint(w: World) {
  const db = getDb();
  const userId = w.a.user.id;
  const [jobs, credentials, consent, keys, snapshots, materials, sessions, users] = await Promise.all([
    db.aiRuntimeJob.findMany({
      where: { userId },
      select: { id: true, status: true, cancelRequested: true, updatedAt: true },
      orderBy: { id: "asc" },
    }),
    db.userCredential.findMany({
      where: { userId },
      select: { id: true, ciphertext: true, deletedAt: true },
      orderBy: { id: "asc" },
    }),
    db.aiConsent.findUnique({ where: { userId }, select: { granted: true, apiKeyMode: true, updatedAt: true } }),
    db.runtimeApiKey.findMany({ select: { id: true, revokedAt: true }, orderBy: { id: "asc" } }),
    db.snapshot.count({ where: { userId } }),
    db.material.findMany({
      where: { userId },
      select: { id: true, title: true, content: true, knowledgePoints: { select: { id: true, title: true } } },
      orderBy: { id: "asc" },
    }),
    db.studySession.count({ where: { userId } }),
    db.user.count(),
  ]);
  return JSON.stringify({ jobs, credentials, consent, keys, snapshots, materials, sessions, users });
}

type Callable = (input?: unknown) => Promise<unknown>;

/** `caller.admin.jobs.get` for the path "admin.jobs.get". */
export function procedureAt(caller: unknown, path: string): Callable {
  return path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as Callable;
}
