import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { getOwnSnapshot } from "@/server/jobs/queries";
import { masteryOfLearner } from "@/server/account/learner-mastery";
import { grade, gradingOf } from "@/server/job-types/quiz-generation/grading";
import { callerAs } from "../helpers/auth";
import { createLearner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { codeOf } from "../helpers/trpc-code";

const MODEL = "当浮力大于重力时物体上浮，等于重力时悬浮或漂浮，小于重力时下沉。";
const OWN_WORDS = "浮力比重力大就会往上浮，两个一样大就停在水里，浮力小了就沉下去";

const q = (
  type: "single_choice" | "true_false" | "short_answer",
  answer: string,
  extra: Record<string, unknown> = {},
) => ({
  type,
  stem: `${type}: ${answer}?`,
  options: [] as string[],
  answer,
  explanation: "见教材。",
  knowledgePointId: "kp",
  difficulty: "easy",
  ...extra,
});

/** A quiz with a choice, a number, a term and two free questions, on one point. */
const quizOutput = (kp: string) => ({
  questions: [
    { ...q("single_choice", "上浮", { options: ["上浮", "下沉"] }), stem: "浮力大于重力时物体会？" },
    { ...q("short_answer", "9.8 N"), stem: "质量 1 kg 的物体受到的重力约为多少？" },
    { ...q("short_answer", "阿基米德原理"), stem: "浮力等于排开液体所受重力，这叫什么？" },
    { ...q("short_answer", MODEL, { explanation: MODEL }), stem: "请用自己的话解释“物体的浮沉条件”。" },
    { ...q("short_answer", MODEL, { explanation: MODEL }), stem: "请再用自己的话说一遍浮沉条件。" },
  ].map((x) => ({ ...x, knowledgePointId: kp })),
});

describe("grading: what the app checks, and what she marks herself", () => {
  it("grades choices, numbers (tolerance, units) and terms (width, case, punctuation); leaves free answers to her", () => {
    const number = q("short_answer", "9.8 N");
    expect(gradingOf(number)).toBe("number");
    expect(grade(number, "9.8N")).toBe(true);
    expect(grade(number, "９.８ 牛")).toBe(true);
    expect(grade(number, "9.85 N")).toBe(true); // within 1 %
    expect(grade(number, "9.8")).toBe(true); // a unit left out reads as the model answer's
    expect(grade(number, "10.5 N")).toBe(false);
    expect(grade(number, "9.8 kg")).toBe(false); // another dimension
    const length = q("short_answer", "1.5 m");
    expect(grade(length, "150 cm")).toBe(true);
    expect(grade(length, "150 mm")).toBe(false);
    const term = q("short_answer", "Archimedes' principle");
    expect(gradingOf(term)).toBe("term");
    expect(grade(term, "  ARCHIMEDES PRINCIPLE. ")).toBe(true);
    expect(grade(term, "the Archimedes principle")).toBe(true);
    expect(grade(term, "Pascal's principle")).toBe(false);
    expect(grade(q("short_answer", "oxygen"), "Oxygen is released")).toBe(true);
    expect(grade(q("short_answer", "oxygen"), "not oxygen")).toBe(false);
    expect(grade(q("short_answer", "oxygen"), "oxygenase")).toBe(false);
    const zh = q("short_answer", "叶绿素");
    expect(grade(zh, "是 叶绿素。")).toBe(true);
    expect(grade(zh, "叶绿体")).toBe(false);
    expect(grade(zh, "不是叶绿素")).toBe(false);
    const tf = q("true_false", "正确", { options: ["正确", "错误"] });
    expect(grade(tf, "True")).toBe(true);
    expect(grade(tf, "错误")).toBe(false);
    const free = q("short_answer", MODEL);
    expect(gradingOf(free)).toBe("self");
    expect(grade(free, OWN_WORDS)).toBeNull();
    expect(grade(free, MODEL)).toBeNull(); // even the model's words: she marks it
    expect(gradingOf(q("short_answer", "Water is split and oxygen is released."))).toBe("self");
  });

  it("stores a free answer nowhere as wrong: it waits for her mark; marked right it counts right, makes no card, lowers nothing", async () => {
    const a = await createLearner();
    const kp = a.knowledgePoints[1]!.id;
    const caller = callerAs(a.user);
    // The model answer is the point's own statement (the quality rule model_answer_unsupported holds it to that).
    await getDb().knowledgePoint.update({ where: { id: kp }, data: { description: MODEL } });
    const job = await succeededJob(
      a,
      "quiz_generation",
      { count: 5, questionTypes: ["single_choice", "short_answer"] },
      quizOutput(kp),
    );
    const before = (await masteryOfLearner(a.user.id)).points.find((p) => p.knowledgePointId === kp)!;

    const res = await caller.quiz.submit({
      jobId: job.id,
      answers: [
        { index: 0, response: "上浮" },
        { index: 1, response: "9.8牛" },
        { index: 2, response: "阿基米德原理。" },
        { index: 3, response: `\u202e${OWN_WORDS}` },
        { index: 4, response: "不知道" },
      ],
    });
    expect(res).toMatchObject({ score: 3, total: 5, pending: 2, saved: 5 });
    expect(res.results.map((r) => [r.grading, r.correct])).toEqual([
      ["choice", true],
      ["number", true],
      ["term", true],
      ["self", null],
      ["self", null],
    ]);
    expect(res.results[3]).toMatchObject({ response: OWN_WORDS, answer: MODEL });
    const [markRight, markWrong] = [res.results[3]!.markId!, res.results[4]!.markId!];

    // Before her mark: no attempt, no card, no wrong answer anywhere.
    const db = getDb();
    const attempts = () => db.quizAttempt.findMany({ where: { sourceJobId: job.id }, orderBy: { question: "asc" } });
    expect((await attempts()).map((r) => r.correct)).toEqual([true, true, true]);
    expect(await db.reviewCard.count({ where: { userId: a.user.id } })).toBe(0);
    const waiting = await caller.quiz.pending({ jobId: job.id });
    expect(waiting.items.map((w) => [w.index, w.response, w.answer])).toEqual([
      [3, OWN_WORDS, MODEL],
      [4, "不知道", MODEL],
    ]);
    expect((await caller.quiz.plays({ jobId: job.id })).items).toEqual([
      expect.objectContaining({ score: 3, total: 5, pending: 2 }),
    ]);

    // Another learner cannot mark it.
    const b = await createLearner();
    expect(await codeOf(callerAs(b.user).quiz.mark({ markId: markRight, correct: false }))).toBe("NOT_FOUND");

    // She marks her own words right: a right attempt, marked by her, no card; a second mark finds nothing waiting.
    expect(await caller.quiz.mark({ markId: markRight, correct: true })).toEqual({
      markId: markRight,
      index: 3,
      correct: true,
    });
    expect(await codeOf(caller.quiz.mark({ markId: markRight, correct: false }))).toBe("NOT_FOUND");
    const after = (await masteryOfLearner(a.user.id)).points.find((p) => p.knowledgePointId === kp)!;
    expect(after.evidence).toBe(before.evidence + 4);
    expect(after.mastery).toBeGreaterThan(before.mastery);
    expect(await db.reviewCard.count({ where: { userId: a.user.id } })).toBe(0);
    const marked = (await attempts()).filter((r) => r.selfMarked);
    expect(marked.map((r) => [r.correct, r.answeredAt.toISOString()])).toEqual([
      [true, new Date(res.answeredAt).toISOString()],
    ]);

    // "不知道" she marks wrong: that, and only that, counts wrong and joins her review cards.
    await caller.quiz.mark({ markId: markWrong, correct: false });
    const cards = await db.reviewCard.findMany({ where: { userId: a.user.id } });
    expect(cards.map((c) => [c.kind, c.itemIndex])).toEqual([["question", 4]]);
    expect((await caller.quiz.pending({ jobId: job.id })).items).toEqual([]);
    expect((await caller.quiz.plays({ jobId: job.id })).items).toEqual([
      expect.objectContaining({ score: 4, total: 5, pending: 0 }),
    ]);

    // The next analysis sees exactly her verdicts.
    const next = await caller.analyses.trigger({
      target: { type: "user", id: a.user.id },
      jobTypes: ["learning_state_analysis"],
    });
    const snapshot = await getOwnSnapshot(next.items[0]!.job.snapshotId!, a.user.id);
    const stems = new Set(quizOutput(kp).questions.map((x) => x.stem));
    const seen = snapshot.content.quizAttempts.filter((x) => stems.has(x.question));
    expect(seen.filter((x) => !x.correct).map((x) => x.question)).toEqual(["请再用自己的话说一遍浮沉条件。"]);
    expect(seen).toHaveLength(5);
  });

  it("an answer waiting for her mark goes with its knowledge point", async () => {
    const a = await createLearner();
    const kp = a.knowledgePoints[0]!.id;
    await getDb().knowledgePoint.update({ where: { id: kp }, data: { description: MODEL } });
    const job = await succeededJob(
      a,
      "quiz_generation",
      { count: 5, questionTypes: ["single_choice", "short_answer"] },
      quizOutput(kp),
    );
    await callerAs(a.user).quiz.submit({
      jobId: job.id,
      answers: [0, 1, 2, 3, 4].map((index) => ({ index, response: OWN_WORDS })),
    });
    expect(await getDb().pendingAnswer.count({ where: { userId: a.user.id } })).toBe(2);
    await getDb().knowledgePoint.delete({ where: { id: kp } });
    expect(await getDb().pendingAnswer.count({ where: { userId: a.user.id } })).toBe(0);
  });
});
