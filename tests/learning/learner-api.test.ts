import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { getOwnSnapshot } from "@/server/jobs/queries";
import { callerAs } from "../helpers/auth";
import { createLearner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { codeOf } from "../helpers/trpc-code";

/** The procedures behind the learner page, through createCaller with real sessions and a real database. */
const quizOutput = (kp: string) => ({
  questions: [
    {
      type: "single_choice",
      stem: "Where does the Calvin cycle run?",
      options: ["Stroma", "Thylakoid"],
      answer: "Stroma",
      explanation: "In the stroma.",
      knowledgePointId: kp,
      difficulty: "easy",
    },
    {
      type: "true_false",
      stem: "Chlorophyll absorbs light.",
      options: ["True", "False"],
      answer: "True",
      explanation: "It does.",
      knowledgePointId: kp,
      difficulty: "easy",
    },
    {
      type: "short_answer",
      stem: "Which gas is released?",
      options: [],
      answer: "oxygen",
      explanation: "Water is split.",
      knowledgePointId: kp,
      difficulty: "easy",
    },
  ],
});

describe("targets.list", () => {
  it("lists the learner, their materials with knowledge points, and nothing of anyone else's", async () => {
    const [a, b] = await Promise.all([createLearner(), createLearner()]);
    const t = await callerAs(a.user).targets.list();
    expect(t.learner).toEqual({ id: a.user.id, name: a.user.name });
    expect(t.materials.map((m) => m.id)).toEqual([a.material.id]);
    expect(t.materials[0]!.knowledgePoints.map((k) => k.id).sort()).toEqual(a.knowledgePoints.map((k) => k.id).sort());
    expect(JSON.stringify(t)).not.toContain(b.material.id);
  });
});

describe("analyses.trigger", () => {
  it("starts several analyses of one target, and a repeat answers the jobs already in flight", async () => {
    const a = await createLearner();
    const caller = callerAs(a.user);
    const input = {
      target: { type: "material" as const, id: a.material.id },
      jobTypes: ["weak_point_analysis", "quiz_generation", "flashcard_generation"] as const,
      params: {
        quiz_generation: { count: 3, difficulty: "easy", questionTypes: ["true_false"] },
        flashcard_generation: { count: 4 },
      },
    };
    const first = await caller.analyses.trigger({ ...input, jobTypes: [...input.jobTypes] });
    expect(first.items.map((i) => [i.jobType, i.created, i.job.status])).toEqual([
      ["weak_point_analysis", true, "pending"],
      ["quiz_generation", true, "pending"],
      ["flashcard_generation", true, "pending"],
    ]);
    // One capture of the target for the whole trigger: the results describe the same state.
    expect(new Set(first.items.map((i) => i.job.snapshotId)).size).toBe(1);
    expect(first.items[1]!.job.params).toEqual({ count: 3, difficulty: "easy", questionTypes: ["true_false"] });
    const again = await caller.analyses.trigger({ ...input, jobTypes: ["quiz_generation"] });
    expect(again.items[0]).toMatchObject({ created: false, job: { id: first.items[1]!.job.id } });
  });

  it("refuses bad parameters, repeated types and unknown targets with 4xx codes, creating nothing", async () => {
    const a = await createLearner();
    const caller = callerAs(a.user);
    const target = { type: "user" as const, id: a.user.id };
    expect(
      await codeOf(
        caller.analyses.trigger({ target, jobTypes: ["quiz_generation"], params: { quiz_generation: { count: 99 } } }),
      ),
    ).toBe("BAD_REQUEST");
    expect(await codeOf(caller.analyses.trigger({ target, jobTypes: ["quiz_generation", "quiz_generation"] }))).toBe(
      "BAD_REQUEST",
    );
    expect(await codeOf(caller.analyses.trigger({ target, jobTypes: [] }))).toBe("BAD_REQUEST");
    expect(
      await codeOf(
        caller.analyses.trigger({ target: { type: "material", id: "nope" }, jobTypes: ["weak_point_analysis"] }),
      ),
    ).toBe("NOT_FOUND");
    expect(await getDb().aiRuntimeJob.count({ where: { userId: a.user.id } })).toBe(0);
  });

  it("is refused while AI consent is off", async () => {
    const a = await createLearner({ consent: false });
    const code = await codeOf(
      callerAs(a.user).analyses.trigger({
        target: { type: "user", id: a.user.id },
        jobTypes: ["learning_state_analysis"],
      }),
    );
    expect(code).toBe("FORBIDDEN");
  });
});

describe("quiz.submit", () => {
  it("grades on the server, saves attempts with sourceJobId, and the next snapshot contains them", async () => {
    const a = await createLearner();
    const kp = a.knowledgePoints[1]!.id;
    const job = await succeededJob(
      a,
      "quiz_generation",
      { count: 3, questionTypes: ["single_choice", "true_false", "short_answer"] },
      quizOutput(kp),
    );
    const res = await callerAs(a.user).quiz.submit({
      jobId: job.id,
      answers: [
        { index: 0, response: "Stroma" },
        { index: 1, response: "False" },
        { index: 2, response: "Oxygen is released" },
      ],
    });
    expect(res).toMatchObject({ score: 2, total: 3, saved: 3 });
    expect(res.results.map((r) => r.correct)).toEqual([true, false, true]);
    expect(res.results[1]).toMatchObject({ answer: "True", explanation: "It does." });

    const rows = await getDb().quizAttempt.findMany({ where: { sourceJobId: job.id } });
    expect(rows.map((r) => [r.userId, r.knowledgePointId, r.correct]).sort()).toEqual(
      [
        [a.user.id, kp, false],
        [a.user.id, kp, true],
        [a.user.id, kp, true],
      ].sort(),
    );
    expect((await callerAs(a.user).quiz.plays({ jobId: job.id })).items).toEqual([
      expect.objectContaining({ score: 2, total: 3 }),
    ]);

    const next = await callerAs(a.user).analyses.trigger({
      target: { type: "user", id: a.user.id },
      jobTypes: ["learning_state_analysis"],
    });
    const snapshot = await getOwnSnapshot(next.items[0]!.job.snapshotId!, a.user.id);
    expect(snapshot.content.quizAttempts.filter((q) => q.question === "Where does the Calvin cycle run?")).toHaveLength(
      1,
    );
  });

  it("needs every question answered once, and a quiz that exists", async () => {
    const a = await createLearner();
    const job = await succeededJob(a, "quiz_generation", { count: 2 });
    const caller = callerAs(a.user);
    expect(await codeOf(caller.quiz.submit({ jobId: job.id, answers: [{ index: 0, response: "B" }] }))).toBe(
      "BAD_REQUEST",
    );
    expect(
      await codeOf(
        caller.quiz.submit({
          jobId: job.id,
          answers: [
            { index: 0, response: "B" },
            { index: 0, response: "B" },
          ],
        }),
      ),
    ).toBe("BAD_REQUEST");
    const flash = await succeededJob(a, "flashcard_generation", { count: 1 });
    expect(await codeOf(caller.quiz.submit({ jobId: flash.id, answers: [{ index: 0, response: "B" }] }))).toBe(
      "BAD_REQUEST",
    );
    expect(await codeOf(caller.quiz.submit({ jobId: "missing", answers: [{ index: 0, response: "B" }] }))).toBe(
      "NOT_FOUND",
    );
    expect(await getDb().quizAttempt.count({ where: { sourceJobId: job.id } })).toBe(0);
  });
});

describe("flashcards", () => {
  it("marks and unmarks cards as known, idempotently, within the deck", async () => {
    const a = await createLearner();
    const job = await succeededJob(a, "flashcard_generation", { count: 3 });
    const caller = callerAs(a.user);
    expect((await caller.flashcards.marks({ jobId: job.id })).known).toEqual([]);
    await caller.flashcards.setMark({ jobId: job.id, cardIndex: 2, known: true });
    await caller.flashcards.setMark({ jobId: job.id, cardIndex: 2, known: true });
    expect((await caller.flashcards.setMark({ jobId: job.id, cardIndex: 0, known: true })).known).toEqual([0, 2]);
    expect((await caller.flashcards.setMark({ jobId: job.id, cardIndex: 2, known: false })).known).toEqual([0]);
    expect(await codeOf(caller.flashcards.setMark({ jobId: job.id, cardIndex: 3, known: true }))).toBe("BAD_REQUEST");
  });
});

describe("learner B cannot read or act on learner A's jobs, results and quizzes", () => {
  it("every call naming A's resources is NOT_FOUND and changes nothing", async () => {
    const [a, b] = await Promise.all([createLearner(), createLearner()]);
    const quiz = await succeededJob(a, "quiz_generation", { count: 1 });
    const deck = await succeededJob(a, "flashcard_generation", { count: 2 });
    const asB = callerAs(b.user);
    const attempts = () => getDb().quizAttempt.count({ where: { userId: a.user.id } });
    const before = await attempts();

    expect(await codeOf(asB.jobs.get({ jobId: quiz.id }))).toBe("NOT_FOUND");
    expect(await codeOf(asB.quiz.submit({ jobId: quiz.id, answers: [{ index: 0, response: "B" }] }))).toBe("NOT_FOUND");
    expect(await codeOf(asB.quiz.plays({ jobId: quiz.id }))).toBe("NOT_FOUND");
    expect(await codeOf(asB.flashcards.marks({ jobId: deck.id }))).toBe("NOT_FOUND");
    expect(await codeOf(asB.flashcards.setMark({ jobId: deck.id, cardIndex: 0, known: true }))).toBe("NOT_FOUND");
    expect(
      await codeOf(
        asB.analyses.trigger({ target: { type: "material", id: a.material.id }, jobTypes: ["quiz_generation"] }),
      ),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(
        asB.analyses.trigger({ target: { type: "user", id: a.user.id }, jobTypes: ["learning_state_analysis"] }),
      ),
    ).toBe("NOT_FOUND");
    expect(await codeOf(asB.jobs.cancel({ jobId: quiz.id }))).toBe("NOT_FOUND");

    expect(await attempts()).toBe(before);
    expect(await getDb().flashcardMark.count({ where: { jobId: deck.id } })).toBe(0);
    expect(await getDb().aiRuntimeJob.count({ where: { userId: b.user.id } })).toBe(0);
    const listed = await asB.jobs.list({ pageSize: 100 });
    expect(listed.items.map((j) => j.id)).not.toContain(quiz.id);
  });
});
