import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { acceptInvitation, createInvitation } from "@/server/account/invitations";
import { createLearner, runtimeKey, uid } from "../helpers/factories";
import { callApi, platform, serviceKey } from "../helpers/platform-api";
import { runtime } from "../helpers/runtime-api";
import { validOutput } from "../helpers/outputs";

let api: ReturnType<typeof platform>;
let apiKey: string;
beforeAll(async () => {
  apiKey = await serviceKey();
  api = platform(apiKey);
});

const material = (kps: string[], extra: Record<string, unknown> = {}) => ({
  title: "Cell biology",
  text: "Cells are the basic unit of life.\nMitochondria make ATP.",
  knowledgePoints: kps.map((k) => ({ externalId: k, title: `KP ${k}` })),
  ...extra,
});

describe("PUT /api/v1/learners/{externalId}", () => {
  it("creates a learner without a password (201), then updates it (200)", async () => {
    const ext = uid("ext");
    const first = await api.putLearner(ext, { name: "Ada", locale: "en" });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ externalId: ext, name: "Ada", locale: "en", created: true, aiConsent: false });
    expect(first.body.email).toMatch(/@platform-learners\.invalid$/);
    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext }, include: { accounts: true } });
    expect(user.role).toBe("learner");
    expect(user.accounts).toEqual([]);

    const second = await api.putLearner(ext, { name: "Ada L.", email: `${ext}@Example.test`, locale: "zh-CN" });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      name: "Ada L.",
      email: `${ext}@example.test`,
      locale: "zh-CN",
      created: false,
    });
    expect(await getDb().user.count({ where: { externalId: ext } })).toBe(1);
  });

  it("an email of any account it did not make is 409 EMAIL_IN_USE, never a link: no takeover by email", async () => {
    const invitedEmail = `${uid("inv")}@example.test`.toLowerCase();
    const sent = await createInvitation(invitedEmail, null);
    await acceptInvitation({ token: sent.link.split("/").pop(), password: "her-own-password-1" });
    const invited = await getDb().user.findUniqueOrThrow({ where: { email: invitedEmail } });
    const seeded = (await createLearner()).user;
    const admin = (await createLearner({ role: "admin" })).user;
    const platformMade = uid("ext");
    await api.putLearner(platformMade, { name: "Platform made", email: `${platformMade}@example.test` });
    const users = await getDb().user.count();
    for (const victim of [invited, seeded, admin]) {
      const ext = uid("ext");
      const refused = await api.putLearner(ext, { name: "Attacker", email: victim.email });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe("EMAIL_IN_USE");
      // The takeover chain that followed a link: each step finds no learner of that id.
      expect((await api.exportLearner(ext)).status).toBe(404);
      expect((await api.putLearner(ext, { name: "Renamed" })).status).toBe(201);
      expect((await api.eraseLearner(ext)).status).toBe(200);
      // An update of its own learner cannot move the victim's email onto it either.
      const moved = await api.putLearner(platformMade, { name: "Platform made", email: victim.email });
      expect(moved.body.error?.code).toBe("EMAIL_IN_USE");
      const after = await getDb().user.findUniqueOrThrow({ where: { id: victim.id } });
      expect(after).toMatchObject({ email: victim.email, name: victim.name, externalId: null });
    }
    expect(await getDb().user.count()).toBe(users);
    const other = await api.putLearner(uid("ext"), { name: "Other", email: `${platformMade}@example.test` });
    expect(other.status).toBe(409);
  });

  it("records consent as the platform obtained it", async () => {
    const ext = uid("ext");
    expect((await api.putLearner(ext, { name: "C", aiConsent: true })).body.aiConsent).toBe(true);
    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext }, include: { consent: true } });
    expect(user.consent?.granted).toBe(true);
    expect((await api.putLearner(ext, { name: "C" })).body.aiConsent).toBe(true);
    expect((await api.putLearner(ext, { name: "C", aiConsent: false })).body.aiConsent).toBe(false);
  });

  it("bad input is a 400 with a code and writes nothing", async () => {
    const before = await getDb().user.count();
    for (const body of [
      {},
      { name: "" },
      { name: "x".repeat(101) },
      { name: "ok", locale: "fr" },
      { name: "ok", email: "not-an-email" },
      { name: "ok", extra: 1 },
      { name: "a\u0000b" },
      { name: "a\ud800b" },
      JSON.parse('{"name":"ok","__proto__":{"admin":true}}'),
    ]) {
      const res = await api.putLearner(uid("ext"), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
    }
    // Nested thousands deep (each level a valid JSON object): not JSON the API reads, whatever the schema says.
    for (const raw of ['{"name":'.repeat(5_000) + '"x"' + "}".repeat(5_000), "[".repeat(5_000) + "]".repeat(5_000)]) {
      const deep = await callApi("PUT", `/learners/${uid("ext")}`, undefined, { key: apiKey, raw });
      expect([deep.status, deep.body.error.code]).toEqual([400, "MALFORMED_JSON"]);
    }
    const badId = await api.putLearner("has space", { name: "ok" });
    expect(badId.status).toBe(400);
    expect(await getDb().user.count()).toBe(before);
  });
});

describe("PUT /api/v1/learners/{externalId}/materials/{materialId}", () => {
  it("creates a material with its knowledge points, then replaces the set (the missing ones removed with their attempts)", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "M" });
    const m = uid("mat");
    const created = await api.putMaterial(ext, m, material(["a", "b", "c"]));
    expect(created.status).toBe(201);
    expect(created.body.knowledgePoints.map((k: { externalId: string }) => k.externalId)).toEqual(["a", "b", "c"]);
    const act = await api.activity(ext, {
      quizAttempts: [
        { externalId: "q1", knowledgePointExternalId: "c", correct: true, answeredAt: "2026-11-01T10:00:00Z" },
      ],
    });
    expect(act.body.new).toBe(1);

    const updated = await api.putMaterial(ext, m, material(["a", "d"], { title: "Cell biology II" }));
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ created: false, removedKnowledgePoints: 2, title: "Cell biology II" });
    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
    const rows = await getDb().material.findMany({ where: { userId: user.id }, include: { knowledgePoints: true } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.title).toBe("Cell biology II");
    expect(rows[0]!.knowledgePoints.map((k) => k.externalId).sort()).toEqual(["a", "d"]);
    expect(await getDb().quizAttempt.count({ where: { userId: user.id } })).toBe(0);
  });

  it("a knowledge point named by a second material moves to it; text over 200 KB is refused and nothing changes", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "M2" });
    await api.putMaterial(ext, "m1", material(["shared", "own"]));
    await api.putMaterial(ext, "m2", material(["shared"]));
    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
    const kp = await getDb().knowledgePoint.findFirstOrThrow({
      where: { userId: user.id, externalId: "shared" },
      include: { material: true },
    });
    expect(kp.material?.externalId).toBe("m2");

    // 70,000 characters of 3 bytes: over 200 KB of UTF-8, though the body is within its 2 MiB.
    const big = await api.putMaterial(ext, "m1", material([], { text: "字".repeat(70_000) }));
    expect([big.status, big.body.error.code, big.body.error.details]).toEqual([
      413,
      "PAYLOAD_TOO_LARGE",
      { limitBytes: 200 * 1024, path: "text" },
    ]);
    const atLimit = await api.putMaterial(ext, "m3", material([], { text: "x".repeat(200 * 1024) }));
    expect(atLimit.status).toBe(201);
    expect(await getDb().knowledgePoint.count({ where: { userId: user.id } })).toBe(2);
    expect((await getDb().material.findFirstOrThrow({ where: { userId: user.id, externalId: "m1" } })).content).toBe(
      material([]).text,
    );
    const dup = await api.putMaterial(ext, "m1", material(["x", "x"]));
    expect(dup.status).toBe(400);
  });

  it("an unknown learner is a 404 and creates nothing", async () => {
    const before = await getDb().material.count();
    const res = await api.putMaterial(uid("nobody"), "m", material(["a"]));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    expect(await getDb().material.count()).toBe(before);
  });
});

describe("POST /api/v1/learners/{externalId}/activity", () => {
  it("stores new items once: repeats, within a call and across calls, are counted and not stored", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "A" });
    await api.putMaterial(ext, "m", material(["k1", "k2"]));
    const batch = {
      quizAttempts: [
        { externalId: "a1", knowledgePointExternalId: "k1", correct: true, answeredAt: "2026-11-01T10:00:00+08:00" },
        {
          externalId: "a2",
          knowledgePointExternalId: "k2",
          correct: false,
          answeredAt: "2026-11-01T10:01:00Z",
          question: "Why?",
        },
        { externalId: "a2", knowledgePointExternalId: "k2", correct: false, answeredAt: "2026-11-01T10:01:00Z" },
      ],
      studySessions: [
        { externalId: "s1", materialExternalId: "m", startedAt: "2026-11-01T09:00:00Z", minutes: 30 },
        { externalId: "s2", startedAt: "2026-11-02T09:00:00Z", minutes: 5 },
      ],
    };
    const first = await api.activity(ext, batch);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      quizAttempts: { received: 3, new: 2 },
      studySessions: { received: 2, new: 2 },
      reviews: { received: 0, new: 0 },
      new: 4,
      repeated: 1,
    });
    const again = await api.activity(ext, batch);
    expect(again.body).toMatchObject({ new: 0, repeated: 5 });

    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
    const attempts = await getDb().quizAttempt.findMany({ where: { userId: user.id }, orderBy: { externalId: "asc" } });
    expect(attempts.map((a) => [a.externalId, a.correct, a.answeredAt.toISOString(), a.question])).toEqual([
      ["a1", true, "2026-11-01T02:00:00.000Z", ""],
      ["a2", false, "2026-11-01T10:01:00.000Z", "Why?"],
    ]);
    const sessions = await getDb().studySession.findMany({
      where: { userId: user.id },
      orderBy: { externalId: "asc" },
    });
    const m = await getDb().material.findFirstOrThrow({ where: { userId: user.id, externalId: "m" } });
    expect(sessions.map((s) => [s.externalId, s.materialId, s.minutes])).toEqual([
      ["s1", m.id, 30],
      ["s2", null, 5],
    ]);
  });

  it("a batch naming an unknown knowledge point is refused whole (422), 1,001 items is a 400, nothing stored", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "B" });
    await api.putMaterial(ext, "m", material(["k1"]));
    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
    const unknown = await api.activity(ext, {
      quizAttempts: [
        { externalId: "ok", knowledgePointExternalId: "k1", correct: true, answeredAt: "2026-11-01T10:00:00Z" },
        { externalId: "bad", knowledgePointExternalId: "nope", correct: true, answeredAt: "2026-11-01T10:00:00Z" },
      ],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: "UNKNOWN_REFERENCE" });
    expect(unknown.body.error.details[0].path).toBe("quizAttempts.1.knowledgePointExternalId");
    const item = (i: number) => ({ externalId: `s${i}`, startedAt: "2026-11-01T09:00:00Z", minutes: 1 });
    const tooMany = await api.activity(ext, {
      studySessions: Array.from({ length: 600 }, (_, i) => item(i)),
      quizAttempts: Array.from({ length: 401 }, (_, i) => ({
        externalId: `q${i}`,
        knowledgePointExternalId: "k1",
        correct: true,
        answeredAt: "2026-11-01T10:00:00Z",
      })),
    });
    expect(tooMany.status).toBe(400);
    expect((await api.activity(ext, { studySessions: Array.from({ length: 1001 }, (_, i) => item(i)) })).status).toBe(
      400,
    );
    expect(await getDb().quizAttempt.count({ where: { userId: user.id } })).toBe(0);
    expect(await getDb().studySession.count({ where: { userId: user.id } })).toBe(0);
    const full = await api.activity(ext, { studySessions: Array.from({ length: 1000 }, (_, i) => item(i)) });
    expect(full.body.new).toBe(1000);
  });
});

describe("jobs", () => {
  it("starts an analysis under the learner page's rules and reads it to its output", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "J" });
    await api.putMaterial(ext, "m", material(["k1", "k2"]));
    const body = { jobType: "weak_point_analysis", target: { type: "material", externalId: "m" } };

    const noConsent = await api.startJob(ext, body);
    expect(noConsent.status).toBe(403);
    expect(noConsent.body.error.code).toBe("CONSENT_REQUIRED");

    await api.putLearner(ext, { name: "J", aiConsent: true });
    const started = await api.startJob(ext, body);
    expect(started.status).toBe(201);
    expect(started.body.job).toMatchObject({
      status: "pending",
      learnerExternalId: ext,
      target: { type: "material", externalId: "m" },
      output: null,
    });
    // The same analysis in flight: its job again.
    const dup = await api.startJob(ext, body);
    expect(dup.status).toBe(200);
    expect(dup.body).toMatchObject({ created: false, job: { id: started.body.job.id } });
    const event = await getDb().jobEvent.findFirstOrThrow({ where: { jobId: started.body.job.id } });
    expect(event.actorType).toBe("platform");

    const rt = runtime(await runtimeKey(), uid("rt"));
    const jobId = started.body.job.id;
    expect((await rt.lock(jobId)).status).toBe(200);
    const kps = await getDb().knowledgePoint.findMany({ where: { user: { externalId: ext } }, orderBy: { id: "asc" } });
    const output = validOutput(
      "weak_point_analysis",
      kps.map((k) => k.id),
    );
    const result = await rt.result(jobId, 1, output);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const done = await api.getJob(jobId);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "succeeded", outputSchemaVersion: "v1", error: null });
    expect(done.body.output).toEqual(JSON.parse(JSON.stringify(output)));
  });

  it("the idempotency key answers the job it made; unknown targets and bad params are refused with nothing made", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "K", aiConsent: true });
    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
    const body = { jobType: "learning_state_analysis", target: { type: "user" }, idempotencyKey: "k-1" };
    const first = await api.startJob(ext, body);
    expect(first.status).toBe(201);
    const second = await api.startJob(ext, body);
    expect(second.body).toMatchObject({ created: false, job: { id: first.body.job.id, idempotencyKey: "k-1" } });
    // A user target is the learner themself: it names nothing; a material names its id.
    const named = await api.startJob(ext, { ...body, target: { type: "user", externalId: ext } });
    expect([named.status, named.body.error.code]).toEqual([400, "INVALID_REQUEST"]);
    const unnamed = await api.startJob(ext, { jobType: "quiz_generation", target: { type: "material" } });
    expect([unnamed.status, unnamed.body.error.code]).toEqual([400, "INVALID_REQUEST"]);

    const jobs = await getDb().aiRuntimeJob.count({ where: { userId: user.id } });
    const missing = await api.startJob(ext, {
      jobType: "weak_point_analysis",
      target: { type: "knowledge_point", externalId: "nope" },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("TARGET_NOT_FOUND");
    const params = await api.startJob(ext, {
      jobType: "quiz_generation",
      target: { type: "user" },
      params: { count: -5 },
    });
    expect(params.status).toBe(400);
    expect(params.body.error.code).toBe("INVALID_PARAMS");
    const noLearner = await api.startJob(uid("nobody"), body);
    expect(noLearner.status).toBe(404);
    expect(await getDb().aiRuntimeJob.count({ where: { userId: user.id } })).toBe(jobs);
  });

  it("counts against the learner's quota: past it, 429 QUOTA_EXCEEDED", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "Q", aiConsent: true });
    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });
    await getDb().quotaLimit.create({
      data: { userId: user.id, metric: "jobs", period: "hour", allowed: 1, updatedBy: "test", updatedAt: new Date() },
    });
    const ok = await api.startJob(ext, { jobType: "learning_state_analysis", target: { type: "user" } });
    expect(ok.status).toBe(201);
    const over = await api.startJob(ext, { jobType: "weak_point_analysis", target: { type: "user" } });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("QUOTA_EXCEEDED");
  });

  it("a failed job reads with its error and no output", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "F", aiConsent: true });
    const started = await api.startJob(ext, { jobType: "learning_state_analysis", target: { type: "user" } });
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(started.body.job.id)).status).toBe(200);
    expect((await rt.fail(started.body.job.id, 1, "INVALID_SNAPSHOT", "the snapshot is unusable")).status).toBe(200);
    const res = await api.getJob(started.body.job.id);
    expect(res.body).toMatchObject({
      status: "failed",
      output: null,
      error: { code: "INVALID_SNAPSHOT", message: "the snapshot is unusable" },
    });
  });

  it("a job of a learner the platform does not know, or an unknown id, is a 404", async () => {
    const learner = await createLearner();
    const { createTestJob } = await import("../helpers/factories");
    const job = await createTestJob(learner);
    for (const id of [job.id, "nope", "bad id!"]) {
      const res = await api.getJob(id);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("JOB_NOT_FOUND");
    }
  });
});

describe("export and erasure", () => {
  it("exports everything stored about the learner, with the platform's ids, audited naming the key", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "E", email: `${ext}@example.test`, aiConsent: true });
    await api.putMaterial(ext, "m", material(["k1"]));
    await api.activity(ext, {
      quizAttempts: [
        { externalId: "a1", knowledgePointExternalId: "k1", correct: true, answeredAt: "2026-11-01T10:00:00Z" },
      ],
      studySessions: [{ externalId: "s1", materialExternalId: "m", startedAt: "2026-11-01T09:00:00Z", minutes: 7 }],
    });
    await api.startJob(ext, { jobType: "learning_state_analysis", target: { type: "user" } });
    const res = await api.exportLearner(ext);
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ externalId: ext, email: `${ext}@example.test`, name: "E" });
    expect(res.body.materials.map((m: { externalId: string }) => m.externalId)).toEqual(["m"]);
    expect(res.body.knowledgePoints.map((k: { externalId: string }) => k.externalId)).toEqual(["k1"]);
    expect(res.body.quizAttempts.map((a: { externalId: string }) => a.externalId)).toEqual(["a1"]);
    expect(res.body.studySessions.map((a: { externalId: string }) => a.externalId)).toEqual(["s1"]);
    expect(res.body.jobs).toHaveLength(1);
    const audit = await getDb().adminAuditLog.findFirst({
      where: { action: "learner.export" },
      orderBy: { id: "desc" },
    });
    expect(audit?.actorId).toMatch(/^service:/);
    expect((await api.exportLearner(uid("nobody"))).status).toBe(404);
  });

  it("erases the learner: jobs in flight cancelled and gone, no row names them; a second call is a 404", async () => {
    const ext = uid("ext");
    await api.putLearner(ext, { name: "Gone", email: `${ext}@example.test`, aiConsent: true });
    await api.putMaterial(ext, "m", material(["k1"]));
    await api.activity(ext, {
      quizAttempts: [
        { externalId: "a1", knowledgePointExternalId: "k1", correct: true, answeredAt: "2026-11-01T10:00:00Z" },
      ],
    });
    const job = await api.startJob(ext, { jobType: "learning_state_analysis", target: { type: "user" } });
    const user = await getDb().user.findUniqueOrThrow({ where: { externalId: ext } });

    const res = await api.eraseLearner(ext);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      externalId: ext,
      erased: true,
      counts: { jobs: 1, materials: 1, quizAttempts: 1 },
    });
    expect(await getDb().user.count({ where: { id: user.id } })).toBe(0);
    for (const count of [
      getDb().material.count({ where: { userId: user.id } }),
      getDb().knowledgePoint.count({ where: { userId: user.id } }),
      getDb().quizAttempt.count({ where: { userId: user.id } }),
      getDb().aiRuntimeJob.count({ where: { userId: user.id } }),
      getDb().aiConsent.count({ where: { userId: user.id } }),
    ])
      expect(await count).toBe(0);
    expect((await api.getJob(job.body.job.id)).status).toBe(404);
    expect((await api.eraseLearner(ext)).status).toBe(404);
    expect((await api.exportLearner(ext)).status).toBe(404);
    const audit = await getDb().adminAuditLog.findFirst({
      where: { action: "learner.erase" },
      orderBy: { id: "desc" },
    });
    const auditText = JSON.stringify({ actorId: audit?.actorId, scope: audit?.scope });
    expect(auditText).toContain("erasure_");
    expect(auditText).not.toContain(ext);
    expect(auditText).not.toContain(user.id);
    // The same external id later is a new learner.
    expect((await api.putLearner(ext, { name: "Back" })).status).toBe(201);
  });

  it("needs the data:erase and data:export scopes (a default key has no data:erase)", async () => {
    const { DEFAULT_SCOPES } = await import("@/server/platform/scopes");
    const limited = platform(await serviceKey(DEFAULT_SCOPES));
    const ext = uid("ext");
    await limited.putLearner(ext, { name: "Kept" });
    const refused = await limited.eraseLearner(ext);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("data:erase");
    expect(await getDb().user.count({ where: { externalId: ext } })).toBe(1);
    expect((await limited.exportLearner(ext)).status).toBe(200);
    const noExport = platform(await serviceKey(["learners:write"]));
    expect((await noExport.exportLearner(ext)).status).toBe(403);
  });
});
