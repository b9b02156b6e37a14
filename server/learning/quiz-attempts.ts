import { getDb } from "../db";
import { ownJobOutput } from "./own-output";
import { now } from "../clock";
import { AppError } from "../errors";
import { quizSchema, type Quiz } from "../jobs/schemas";
import { enrolWrongQuestions } from "../review/cards";
import { grade, gradingOf } from "../job-types/quiz-generation/grading";
import { boundedText, LIMITS } from "../security/learner-text";

export type QuizAnswer = { index: number; response: string };

/** The generated quiz of one of the learner's own succeeded quiz jobs; anything else is not found. */
export async function getOwnQuiz(userId: string, jobId: string): Promise<Quiz> {
  const words = { otherType: "this job did not generate a quiz", noResult: "this quiz has no questions yet" };
  return quizSchema.parse(await ownJobOutput(userId, jobId, "quiz_generation", words));
}

/**
 * Grades a played quiz. What the app can check (choice, true/false, a number, a term:
 * server/job-types/quiz-generation/grading.ts) is stored as one QuizAttempt per question with sourceJobId, so the
 * next snapshot (and so the next analysis) sees it; questions answered wrong join the learner's
 * review schedule (server/review/cards.ts). An answer in her own words is graded by nobody but
 * her: it is stored as a PendingAnswer, counted nowhere, until she marks it (markAnswer). Every
 * question must be answered exactly once. Questions whose knowledge point the learner no longer
 * has are graded but not stored.
 */
export async function submitQuizAttempt(userId: string, jobId: string, answers: QuizAnswer[]) {
  const quiz = await getOwnQuiz(userId, jobId);
  const n = quiz.questions.length;
  const indexes = answers.map((a) => a.index).sort((x, y) => x - y);
  if (indexes.length !== n || indexes.some((v, i) => v !== i)) {
    throw new AppError("INVALID_REQUEST", `answer each of the ${n} questions exactly once`);
  }
  const byIndex = new Map(answers.map((a) => [a.index, boundedText(a.response, LIMITS.quizAnswer).trim()]));
  const results = quiz.questions.map((q, index) => {
    const response = byIndex.get(index) ?? "";
    return {
      index,
      response,
      grading: gradingOf(q),
      correct: grade(q, response),
      answer: q.answer,
      explanation: q.explanation,
      knowledgePointId: q.knowledgePointId,
    };
  });

  const db = getDb();
  const kpIds = [...new Set(quiz.questions.map((q) => q.knowledgePointId))];
  const owned = new Set(
    (await db.knowledgePoint.findMany({ where: { userId, id: { in: kpIds } }, select: { id: true } })).map((k) => k.id),
  );
  const answeredAt = now();
  const stored = results.filter((r) => owned.has(r.knowledgePointId));
  const graded = stored.filter((r) => r.correct !== null);
  const free = stored.filter((r) => r.correct === null);
  // The attempts, the wrong questions' review cards (server/review) and the answers waiting for her mark are stored together.
  const pending = await db.$transaction(async (tx) => {
    await tx.quizAttempt.createMany({
      data: graded.map((r) => ({
        userId,
        knowledgePointId: r.knowledgePointId,
        question: quiz.questions[r.index]!.stem,
        correct: r.correct!,
        answeredAt,
        sourceJobId: jobId,
      })),
    });
    const wrong = graded.filter((r) => !r.correct).map((r) => ({ ...quiz.questions[r.index]!, index: r.index }));
    await enrolWrongQuestions(userId, jobId, wrong, tx);
    return tx.pendingAnswer.createManyAndReturn({
      data: free.map((r) => ({
        userId,
        knowledgePointId: r.knowledgePointId,
        sourceJobId: jobId,
        itemIndex: r.index,
        question: quiz.questions[r.index]!.stem,
        response: r.response,
        answeredAt,
      })),
      select: { id: true, itemIndex: true },
    });
  });
  const markIds = new Map(pending.map((p) => [p.itemIndex, p.id]));
  return {
    score: results.filter((r) => r.correct === true).length,
    total: n,
    /** Answers she marks herself; the score counts them once she has. */
    pending: results.filter((r) => r.correct === null).length,
    saved: stored.length,
    answeredAt,
    results: results.map(({ index, response, grading, correct, answer, explanation }) => ({
      index,
      response,
      grading,
      correct,
      answer,
      explanation,
      markId: markIds.get(index) ?? null,
    })),
  };
}

/**
 * Her own mark of an answer she wrote in her own words: it becomes a QuizAttempt marked so
 * (selfMarked), with the time she answered; marked wrong, the question joins her review schedule
 * like any wrong answer; marked right, no card and nothing lowers. Marked once: a later mark finds
 * nothing waiting (NOT_FOUND; two racing marks: the second is ANSWER_ALREADY_MARKED) and changes
 * nothing; another learner's answer is NOT_FOUND.
 */
export async function markAnswer(userId: string, markId: string, correct: boolean) {
  const db = getDb();
  const row = await db.pendingAnswer.findFirst({ where: { id: markId, userId } });
  if (!row) {
    throw new AppError("NOT_FOUND", "no such answer waiting for your mark");
  }
  const quiz = await getOwnQuiz(userId, row.sourceJobId).catch(() => null);
  const question = quiz?.questions[row.itemIndex];
  return db.$transaction(async (tx) => {
    const { count } = await tx.pendingAnswer.deleteMany({ where: { id: markId, userId } });
    if (!count) throw new AppError("ANSWER_ALREADY_MARKED", "this answer was marked meanwhile");
    await tx.quizAttempt.create({
      data: {
        userId,
        knowledgePointId: row.knowledgePointId,
        question: row.question,
        correct,
        selfMarked: true,
        answeredAt: row.answeredAt,
        sourceJobId: row.sourceJobId,
      },
    });
    if (!correct && question)
      await enrolWrongQuestions(userId, row.sourceJobId, [{ ...question, index: row.itemIndex }], tx);
    return { markId, index: row.itemIndex, correct };
  });
}

/** Her answers still waiting for her mark, oldest first (one quiz's when `jobId` is given), with the model answers. */
export async function listPendingAnswers(userId: string, jobId?: string) {
  if (jobId) await getOwnQuiz(userId, jobId);
  const rows = await getDb().pendingAnswer.findMany({
    where: { userId, ...(jobId ? { sourceJobId: jobId } : {}) },
    orderBy: [{ answeredAt: "asc" }, { itemIndex: "asc" }],
    take: 100,
  });
  const quizzes = new Map<string, Quiz | null>();
  for (const id of new Set(rows.map((r) => r.sourceJobId)))
    quizzes.set(id, await getOwnQuiz(userId, id).catch(() => null));
  return {
    items: rows.map((r) => {
      const q = quizzes.get(r.sourceJobId)?.questions[r.itemIndex];
      return {
        markId: r.id,
        jobId: r.sourceJobId,
        index: r.itemIndex,
        question: r.question,
        response: r.response,
        answer: q?.answer ?? "",
        explanation: q?.explanation ?? "",
        answeredAt: r.answeredAt,
      };
    }),
  };
}

/**
 * The learner's earlier plays of one generated quiz, newest first, grouped by submission time:
 * the score counts right answers (the app's grade or her own mark), `pending` her answers still
 * waiting for her mark.
 */
export async function listQuizPlays(userId: string, jobId: string) {
  await getOwnQuiz(userId, jobId);
  const db = getDb();
  const [rows, waiting] = await Promise.all([
    db.quizAttempt.findMany({
      where: { userId, sourceJobId: jobId },
      select: { answeredAt: true, correct: true },
      orderBy: { answeredAt: "desc" },
    }),
    db.pendingAnswer.findMany({ where: { userId, sourceJobId: jobId }, select: { answeredAt: true } }),
  ]);
  const plays = new Map<number, { answeredAt: Date; score: number; total: number; pending: number }>();
  const play = (at: Date) => {
    const p = plays.get(at.getTime()) ?? { answeredAt: at, score: 0, total: 0, pending: 0 };
    plays.set(at.getTime(), p);
    return p;
  };
  for (const r of rows) {
    const p = play(r.answeredAt);
    p.total += 1;
    if (r.correct) p.score += 1;
  }
  for (const w of waiting) {
    const p = play(w.answeredAt);
    p.total += 1;
    p.pending += 1;
  }
  return { items: [...plays.values()].sort((a, b) => b.answeredAt.getTime() - a.answeredAt.getTime()) };
}
