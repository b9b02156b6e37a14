import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { setConsent } from "@/server/jobs/consent";
import { POST as uploadFile } from "@/app/api/materials/file/route";
import { APP_URL, callerAs, setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { trpcHttp } from "../helpers/trpc-route";
import { codeOf } from "../helpers/trpc-code";

/** A learner with nothing at all: no materials, no knowledge points, no history. */
async function newLearner() {
  const id = uid("user");
  const user = await getDb().user.create({ data: { id, email: `${id}@example.test`, name: `New ${id}` } });
  await setConsent(id, true, { type: "learner", id });
  return { ...user, role: "learner" as const };
}

const KB = 1024;

describe("My materials", () => {
  it("add, edit and delete a material and its knowledge points; the target list follows at once", async () => {
    const me = await newLearner();
    const caller = callerAs(me);
    expect((await caller.targets.list()).materials).toEqual([]);
    const m = await caller.materials.create({
      title: "  Cell biology \u202e ",
      text: "Cells are the unit of life.\r\nMitochondria make ATP.\u0007",
      knowledgePoints: [{ title: "Mitochondria" }, { title: "Cell membrane", description: "What passes through" }],
    });
    expect(m.title).toBe("Cell biology");
    expect(m.text).toBe("Cells are the unit of life.\nMitochondria make ATP.");
    expect(m.knowledgePoints.map((k) => k.title)).toEqual(["Mitochondria", "Cell membrane"]);
    let targets = await caller.targets.list();
    expect(targets.materials).toEqual([
      {
        id: m.id,
        title: "Cell biology",
        knowledgePoints: expect.arrayContaining([expect.objectContaining({ title: "Mitochondria" })]),
      },
    ]);

    await caller.materials.update({ materialId: m.id, title: "Cells", text: "Updated text." });
    const kp = await caller.materials.addKnowledgePoint({ materialId: m.id, title: "Nucleus" });
    await caller.materials.renameKnowledgePoint({ knowledgePointId: m.knowledgePoints[0]!.id, title: "Mitochondrion" });
    await caller.materials.deleteKnowledgePoint({ knowledgePointId: m.knowledgePoints[1]!.id });
    const got = await caller.materials.get({ materialId: m.id });
    expect(got.title).toBe("Cells");
    expect(got.text).toBe("Updated text.");
    expect(got.knowledgePoints.map((k) => k.title)).toEqual(["Mitochondrion", "Nucleus"]);
    targets = await caller.targets.list();
    expect(targets.materials[0]!.knowledgePoints.map((k) => k.title).sort()).toEqual(["Mitochondrion", "Nucleus"]);
    const list = await caller.materials.list();
    expect(list.items[0]).toMatchObject({ id: m.id, preview: "Updated text.", textBytes: 13 });

    // The snapshot of an analysis sees the material as it is now.
    const snap = await caller.analyses.trigger({
      target: { type: "material", id: m.id },
      jobTypes: ["weak_point_analysis"],
    });
    expect(snap.items[0]!.created).toBe(true);

    const gone = await caller.materials.delete({ materialId: m.id });
    expect(gone).toEqual({ id: m.id, deletedKnowledgePoints: 2 });
    expect(await getDb().knowledgePoint.count({ where: { id: kp.id } })).toBe(0);
    expect((await caller.targets.list()).materials).toEqual([]);
    // The past job and its snapshot stay readable.
    const job = await caller.jobs.get({ jobId: snap.items[0]!.job.id });
    const snapshot = await caller.snapshots.get({ snapshotId: job.job.snapshotId! });
    expect(snapshot.content.materials[0]!.title).toBe("Cells");
  });

  it("deleting a material keeps its study sessions (unlinked) and drops the quiz attempts on its topics", async () => {
    const learner = await createLearner();
    const caller = callerAs({ ...learner.user, role: "learner" });
    await caller.materials.delete({ materialId: learner.material.id });
    expect(await getDb().quizAttempt.count({ where: { userId: learner.user.id } })).toBe(0);
    const sessions = await getDb().studySession.findMany({ where: { userId: learner.user.id } });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.materialId).toBeNull();
  });

  it("a learner sees and changes only their own materials and knowledge points", async () => {
    const owner = await createLearner();
    const intruder = callerAs(await newLearner());
    const mid = owner.material.id;
    const kid = owner.knowledgePoints[0]!.id;
    for (const attempt of [
      () => intruder.materials.get({ materialId: mid }),
      () => intruder.materials.update({ materialId: mid, title: "mine now" }),
      () => intruder.materials.delete({ materialId: mid }),
      () => intruder.materials.addKnowledgePoint({ materialId: mid, title: "x" }),
      () => intruder.materials.renameKnowledgePoint({ knowledgePointId: kid, title: "x" }),
      () => intruder.materials.deleteKnowledgePoint({ knowledgePointId: kid }),
    ])
      expect(await codeOf(attempt())).toBe("NOT_FOUND");
    expect((await intruder.materials.list()).items).toEqual([]);
    expect(await codeOf(callerAs(null).materials.list())).toBe("UNAUTHORIZED");
    const row = await getDb().material.findUniqueOrThrow({ where: { id: mid }, include: { knowledgePoints: true } });
    expect(row.title).toBe("Photosynthesis");
    expect(row.knowledgePoints).toHaveLength(3);
  });

  it("text over 200 KB is 413 over HTTP and stores nothing; 200 KB exactly is accepted; empty fields are 400", async () => {
    const me = await newLearner();
    await setPassword(me.id, "materials-password-1");
    const cookie = await signedInCookie(me.email, "materials-password-1");
    const headers = { cookie, origin: APP_URL };
    const over = await trpcHttp(
      "mutation",
      "materials.create",
      { title: "Big", text: "é".repeat(100 * KB + 1) },
      headers,
    );
    expect(over.status).toBe(413);
    expect(over.body.error.data.appCode).toBe("PAYLOAD_TOO_LARGE");
    expect(over.body.error.message).toMatch(/200 KB/);
    for (const bad of [
      { title: "  ", text: "x" },
      { title: "t", text: " \n " },
      { title: "t".repeat(201), text: "x" },
    ]) {
      const res = await trpcHttp("mutation", "materials.create", bad, headers);
      expect(res.status, JSON.stringify(bad).slice(0, 50)).toBe(400);
    }
    expect(await getDb().material.count({ where: { userId: me.id } })).toBe(0);
    const exact = await trpcHttp(
      "mutation",
      "materials.create",
      { title: "Exact", text: "a".repeat(200 * KB) },
      headers,
    );
    expect(exact.status).toBe(200);
    const upd = await trpcHttp(
      "mutation",
      "materials.update",
      { materialId: exact.body.result.data.id, text: "b".repeat(200 * KB + 1) },
      headers,
    );
    expect(upd.status).toBe(413);
    expect((await getDb().material.findFirstOrThrow({ where: { userId: me.id } })).content).toBe("a".repeat(200 * KB));
  });

  it("file upload: .txt/.md up to 200 KB is read; other types, binary and oversized files are refused clearly", async () => {
    const me = await newLearner();
    await setPassword(me.id, "materials-password-2");
    const cookie = await signedInCookie(me.email, "materials-password-2");
    const send = async (name: string, body: BlobPart, type = "", headers: Record<string, string> = { cookie }) => {
      const form = new FormData();
      form.append("file", new Blob([body], { type }), name);
      const res = await uploadFile(
        new Request(`${APP_URL}/api/materials/file`, { method: "POST", body: form, headers }),
      );
      return { status: res.status, body: await res.json() };
    };
    const md = await send("Kinematics notes.md", "\uFEFF# Kinematics\n\nv = u + at\n", "text/markdown");
    expect(md).toEqual({ status: 200, body: { title: "Kinematics notes", text: "# Kinematics\n\nv = u + at" } });
    expect((await send("a.TXT", "plain", "text/plain")).status).toBe(200);
    const pdf = await send("paper.pdf", "%PDF-1.4", "application/pdf");
    expect(pdf.status).toBe(415);
    expect(pdf.body.error.message).toMatch(/only \.txt and \.md/);
    expect((await send("fake.txt", "%PDF-1.4", "application/pdf")).status).toBe(415);
    const binary = await send("image.md", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]));
    expect(binary.status).toBe(415);
    expect(binary.body.error.message).toMatch(/UTF-8/);
    expect((await send("nul.txt", "a\u0000b")).status).toBe(415);
    const big = await send("big.txt", "x".repeat(200 * KB + 1), "text/plain");
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    const huge = await send("huge.txt", "x".repeat(2 * 1024 * KB), "text/plain");
    expect(huge.status).toBe(413);
    expect((await send("ok.txt", "x".repeat(200 * KB), "text/plain")).status).toBe(200);
    // Signed out: 401; from another site: 403.
    expect((await send("a.txt", "x", "text/plain", {})).status).toBe(401);
    expect((await send("a.txt", "x", "text/plain", { cookie, origin: "https://evil.example" })).status).toBe(403);
    expect(await getDb().material.count({ where: { userId: me.id } })).toBe(0);
  });

  it("concurrent adds of knowledge points to a material being deleted leave no orphan", async () => {
    const me = await newLearner();
    const caller = callerAs(me);
    const m = await caller.materials.create({ title: "Race", text: "text" });
    const adds = Array.from({ length: 5 }, (_, i) =>
      caller.materials.addKnowledgePoint({ materialId: m.id, title: `k${i}` }),
    );
    const results = await Promise.allSettled([...adds, caller.materials.delete({ materialId: m.id })]);
    expect(results.at(-1)!.status).toBe("fulfilled");
    expect(await getDb().knowledgePoint.count({ where: { userId: me.id } })).toBe(0);
    for (const r of results.slice(0, -1))
      if (r.status === "rejected") expect((r.reason as TRPCError).code).toBe("NOT_FOUND");
  });
});

describe("flashcard and quiz use are study activity", () => {
  it("flipping or marking a deck's cards records one study session on its material, which the next snapshot reads", async () => {
    const learner = await createLearner();
    const caller = callerAs({ ...learner.user, role: "learner" });
    const deck = await succeededJob(learner, "flashcard_generation", { count: 4 });
    // The factory's job targets the learner; point the deck at the material as a material deck would.
    await getDb().aiRuntimeJob.update({
      where: { id: deck.id },
      data: { targetType: "material", targetId: learner.material.id },
    });
    const before = await getDb().studySession.count({ where: { userId: learner.user.id } });
    const first = await caller.flashcards.study({ jobId: deck.id });
    await caller.flashcards.setMark({ jobId: deck.id, cardIndex: 1, known: true });
    await Promise.all([caller.flashcards.study({ jobId: deck.id }), caller.flashcards.study({ jobId: deck.id })]);
    const sessions = await getDb().studySession.findMany({ where: { userId: learner.user.id, sourceJobId: deck.id } });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ id: first.sessionId, materialId: learner.material.id, minutes: 1 });
    expect(await getDb().studySession.count({ where: { userId: learner.user.id } })).toBe(before + 1);
    const trig = await caller.analyses.trigger({
      target: { type: "material", id: learner.material.id },
      jobTypes: ["weak_point_analysis"],
    });
    const snap = await caller.snapshots.get({ snapshotId: trig.items[0]!.job.snapshotId! });
    expect(snap.content.studySessions).toHaveLength(before + 1);
    // Someone else's deck is not found, and records nothing.
    const other = callerAs(await newLearner());
    expect(await codeOf(other.flashcards.study({ jobId: deck.id }))).toBe("NOT_FOUND");
  });

  it("a played generated quiz records a quiz attempt per question on its knowledge point", async () => {
    const learner = await createLearner();
    const caller = callerAs({ ...learner.user, role: "learner" });
    const quiz = await succeededJob(learner, "quiz_generation", { count: 3 });
    const { questions } = (await getDb().aiRuntimeResult.findUniqueOrThrow({ where: { jobId: quiz.id } })).output as {
      questions: { knowledgePointId: string }[];
    };
    const before = await getDb().quizAttempt.count({ where: { userId: learner.user.id } });
    await caller.quiz.submit({ jobId: quiz.id, answers: questions.map((_, index) => ({ index, response: "x" })) });
    const stored = await getDb().quizAttempt.findMany({ where: { userId: learner.user.id, sourceJobId: quiz.id } });
    expect(stored.map((a) => a.knowledgePointId).sort()).toEqual(questions.map((q) => q.knowledgePointId).sort());
    expect(await getDb().quizAttempt.count({ where: { userId: learner.user.id } })).toBe(before + questions.length);
  });
});
