import { getDb } from "../db";
import { ownJobOutput } from "./own-output";
import { now } from "../clock";
import { AppError } from "../errors";
import { quizSchema, type Quiz } from "../jobs/schemas";
import { graphemes, norm } from "../job-types/fields";
import { enrolWrongQuestions } from "../review/cards";

export type QuizAnswer = { index: number; response: string };

/**
 * Choice and true/false questions are right when the chosen option is the answer. A short answer
 * is right when it matches the model answer, or contains it when that answer is a word or a short
 * phrase (fill-in-the-blank); a free explanation is never graded right automatically — the
 * learner sees the model answer and the explanation instead.
 */
export function grade(question: Quiz["questions"][number], response: string): boolean {
  const r = norm(response);
  const a = norm(question.answer);
  if (!r) return false;
  if (question.type !== "short_answer") return r === a;
  return r === a || (graphemes(a) <= 40 && r.includes(a));
}

/** The generated quiz of one of the learner's own succeeded quiz jobs; anything else is not found. */
export async function getOwnQuiz(userId: string, jobId: string): Promise<Quiz> {
  const words = { otherType: "this job did not generate a quiz", noResult: "this quiz has no questions yet" };
  return quizSchema.parse(await ownJobOutput(userId, jobId, "quiz_generation", words));
}

/**
 * Grades a played quiz and stores one QuizAttempt per question with sourceJobId, so the next
 * snapshot (and so the next analysis) sees them. Every question must be answered exactly once.
 * Questions whose knowledge point the learner no longer has are graded but not stored. Questions
 * answered wrong join the learner's review schedule (server/review/cards.ts).
 */
export async function submitQuizAttempt(userId: string, jobId: string, answers: QuizAnswer[]) {
  const quiz = await getOwnQuiz(userId, jobId);
  const n = quiz.questions.length;
  const indexes = answers.map((a) => a.index).sort((x, y) => x - y);
  if (indexes.length !== n || indexes.some((v, i) => v !== i)) {
    throw new AppError("INVALID_REQUEST", `answer each of the ${n} questions exactly once`);
  }
  const byIndex = new Map(answers.map((a) => [a.index, a.response]));
  const results = quiz.questions.map((q, index) => {
    const response = byIndex.get(index) ?? "";
    return {
      index,
      response,
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
  // The attempts and the wrong questions' review cards (server/review) are stored together.
  await db.$transaction(async (tx) => {
    await tx.quizAttempt.createMany({
      data: stored.map((r) => ({
        userId,
        knowledgePointId: r.knowledgePointId,
        question: quiz.questions[r.index]!.stem,
        correct: r.correct,
        answeredAt,
        sourceJobId: jobId,
      })),
    });
    const wrong = stored.filter((r) => !r.correct).map((r) => ({ ...quiz.questions[r.index]!, index: r.index }));
    await enrolWrongQuestions(userId, jobId, wrong, tx);
  });
  return {
    score: results.filter((r) => r.correct).length,
    total: n,
    saved: stored.length,
    answeredAt,
    results: results.map(({ index, response, correct, answer, explanation }) => ({
      index,
      response,
      correct,
      answer,
      explanation,
    })),
  };
}

/** The learner's earlier plays of one generated quiz, newest first, grouped by submission time. */
export async function listQuizPlays(userId: string, jobId: string) {
  await getOwnQuiz(userId, jobId);
  const rows = await getDb().quizAttempt.findMany({
    where: { userId, sourceJobId: jobId },
    select: { answeredAt: true, correct: true },
    orderBy: { answeredAt: "desc" },
  });
  const plays = new Map<number, { answeredAt: Date; score: number; total: number }>();
  for (const r of rows) {
    const key = r.answeredAt.getTime();
    const play = plays.get(key) ?? { answeredAt: r.answeredAt, score: 0, total: 0 };
    play.total += 1;
    if (r.correct) play.score += 1;
    plays.set(key, play);
  }
  return { items: [...plays.values()] };
}
