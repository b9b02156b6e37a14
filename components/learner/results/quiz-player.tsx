"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { Quiz } from "@/server/jobs/schemas";
import { appCodeOf, explainError } from "../labels";
import { useRefreshFacts } from "../learner-facts";
import { Time } from "@/components/time";
import { refreshAfterWrite } from "@/components/trpc/refresh";
import { gradingOf } from "@/server/job-types/quiz-generation/grading";

/**
 * The generated quiz, playable: what the app can check is graded on the server and saved as quiz
 * attempts; an answer in her own words is shown beside the model answer and she marks it herself.
 */
export function QuizPlayer({ jobId, output }: { jobId: string; output: Quiz }) {
  const t = useTranslations("quiz");
  const tErrors = useTranslations("errors");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [answers, setAnswers] = useState<Record<number, string>>({});
  const refreshFacts = useRefreshFacts();
  const plays = useQuery(trpc.quiz.plays.queryOptions({ jobId }));
  const waiting = useQuery(trpc.quiz.pending.queryOptions({ jobId }));
  const submit = useMutation(
    trpc.quiz.submit.mutationOptions({
      // Wrong answers join Review as cards: Review and the top line read again with the plays.
      onSuccess: () => Promise.all([refreshAfterWrite(queryClient), refreshFacts()]),
    }),
  );
  const graded = submit.data;
  // Her marks of answers in her own words, by markId, once saved.
  const [marks, setMarks] = useState<Record<string, boolean>>({});
  const mark = useMutation(
    trpc.quiz.mark.mutationOptions({
      onSuccess: (m) => {
        setMarks((all) => ({ ...all, [m.markId]: m.correct }));
        // A wrong mark makes a card: Review and the top line read again too.
        return Promise.all([refreshAfterWrite(queryClient), refreshFacts()]);
      },
    }),
  );
  const markedRight = Object.entries(marks).filter(
    ([id, right]) => right && graded?.results.some((r) => r.markId === id),
  ).length;
  const stillToMark = graded ? graded.results.filter((r) => r.markId && !(r.markId in marks)).length : 0;
  const earlier = (waiting.data?.items ?? []).filter((w) => !graded?.results.some((r) => r.markId === w.markId));
  // The submit button is replaced by the score: focus moves to the score (a screen reader reads
  // it), and back to the first question on "Play again", never to <body>.
  const scoreRef = useRef<HTMLDivElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const [replay, setReplay] = useState(0);
  useEffect(() => {
    if (graded) scoreRef.current?.focus();
  }, [graded]);
  useEffect(() => {
    if (replay) formRef.current?.querySelector<HTMLElement>("input, textarea")?.focus();
  }, [replay]);
  const unanswered = output.questions.filter((_, i) => !(answers[i] ?? "").trim()).length;

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    if (submit.isPending) return;
    submit.mutate({ jobId, answers: output.questions.map((_, index) => ({ index, response: answers[index] ?? "" })) });
  };

  return (
    <form ref={formRef} onSubmit={onSubmit} aria-label={t("formLabel")}>
      {graded && (
        <div
          ref={scoreRef}
          tabIndex={-1}
          role="status"
          className="mb-4 rounded-lg bg-indigo-50 p-4 ring-1 ring-indigo-200 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
          data-testid="quiz-score"
        >
          <p className="text-xl font-semibold">
            {t("score", { score: graded.score + markedRight, total: graded.total })}
          </p>
          {stillToMark > 0 && (
            <p className="text-sm font-medium text-indigo-900" data-testid="quiz-to-mark">
              {t("scorePending", { count: stillToMark })}
            </p>
          )}
          <p className="text-sm text-indigo-900">{t("saved")}</p>
        </div>
      )}
      <ol className="space-y-4">
        {output.questions.map((q, i) => {
          const result = graded?.results[i];
          const options = q.type === "short_answer" ? [] : q.options.length ? q.options : ["True", "False"];
          return (
            <li key={i} className="rounded-lg p-3 ring-1 ring-slate-200" data-testid="quiz-question">
              <fieldset disabled={!!graded}>
                <legend className="font-medium [overflow-wrap:anywhere]">
                  {i + 1}. {q.stem}{" "}
                  <span className="ml-1 text-xs font-normal text-slate-600">
                    {t("difficulty", { difficulty: q.difficulty })}
                  </span>
                </legend>
                {options.length > 0 ? (
                  <div className="mt-2 space-y-1">
                    {options.map((o) => (
                      <label
                        key={o}
                        className="flex cursor-pointer items-center gap-2 rounded-md px-2 py-1 hover:bg-slate-50"
                      >
                        <input
                          type="radio"
                          name={`q${i}`}
                          value={o}
                          checked={answers[i] === o}
                          onChange={() => setAnswers({ ...answers, [i]: o })}
                          className="accent-indigo-600"
                        />
                        <span className="min-w-0 text-sm [overflow-wrap:anywhere]">
                          {/* The built-in true/false pair is graded by its English value; only its words are translated. */}
                          {q.options.length === 0 && o === "True"
                            ? t("true")
                            : q.options.length === 0 && o === "False"
                              ? t("false")
                              : o}
                        </span>
                      </label>
                    ))}
                  </div>
                ) : gradingOf(q) === "self" ? (
                  <textarea
                    aria-label={t("answerLabel", { number: i + 1 })}
                    value={answers[i] ?? ""}
                    onChange={(e) => setAnswers({ ...answers, [i]: e.target.value })}
                    rows={3}
                    className="mt-2 w-full rounded-md border border-slate-300 px-2 py-1 text-sm"
                  />
                ) : (
                  <input
                    type="text"
                    aria-label={t("answerLabel", { number: i + 1 })}
                    value={answers[i] ?? ""}
                    onChange={(e) => setAnswers({ ...answers, [i]: e.target.value })}
                    className="mt-2 w-full rounded-md border border-slate-300 px-2 py-1 text-sm"
                  />
                )}
              </fieldset>
              {result && result.correct === null && (
                <SelfMark
                  response={result.response}
                  answer={result.answer}
                  explanation={result.explanation}
                  markId={result.markId}
                  marked={result.markId ? marks[result.markId] : undefined}
                  busy={mark.isPending}
                  onMark={(correct) => result.markId && mark.mutate({ markId: result.markId, correct })}
                />
              )}
              {result && result.correct !== null && (
                <div
                  className={`mt-2 rounded-md p-2 text-sm ${result.correct ? "bg-emerald-50 text-emerald-900" : "bg-rose-50 text-rose-900"}`}
                >
                  <p className="font-medium [overflow-wrap:anywhere]">
                    {result.correct ? t("correct") : t("wrong", { answer: result.answer })}
                  </p>
                  <p className="mt-1 [overflow-wrap:anywhere]">{result.explanation}</p>
                </div>
              )}
            </li>
          );
        })}
      </ol>
      {earlier.length > 0 && (
        <section className="mt-4 rounded-lg p-3 ring-1 ring-amber-200" data-testid="quiz-waiting">
          <h3 className="text-sm font-semibold">{t("waiting")}</h3>
          <ul className="mt-2 space-y-3">
            {earlier.map((w) => (
              <li key={w.markId}>
                <p className="text-sm font-medium [overflow-wrap:anywhere]">
                  {w.index + 1}. {w.question}
                </p>
                <SelfMark
                  response={w.response}
                  answer={w.answer}
                  explanation={w.explanation}
                  markId={w.markId}
                  marked={marks[w.markId]}
                  busy={mark.isPending}
                  onMark={(correct) => mark.mutate({ markId: w.markId, correct })}
                />
              </li>
            ))}
          </ul>
        </section>
      )}
      {mark.error && (
        <p role="alert" className="mt-3 text-sm text-rose-700">
          {t("markError", { message: explainError(tErrors, appCodeOf(mark.error), mark.error.message) })}
        </p>
      )}
      {submit.error && (
        <p role="alert" className="mt-3 text-sm text-rose-700">
          {explainError(tErrors, appCodeOf(submit.error), submit.error.message)}
        </p>
      )}
      <div className="mt-4 flex flex-wrap items-center gap-3">
        {graded ? (
          <button
            type="button"
            onClick={() => {
              submit.reset();
              setAnswers({});
              setReplay((n) => n + 1);
            }}
            className="rounded-lg bg-slate-900 px-4 py-2 text-sm font-medium text-white"
          >
            {t("playAgain")}
          </button>
        ) : (
          <button
            type="submit"
            disabled={unanswered > 0}
            aria-disabled={submit.isPending || undefined}
            className="rounded-lg bg-indigo-600 px-4 py-2 text-sm font-semibold text-white disabled:opacity-50"
          >
            {submit.isPending ? t("checking") : t("submit")}
          </button>
        )}
        {!graded && unanswered > 0 && (
          <span className="text-sm text-slate-600">{t("left", { count: unanswered })}</span>
        )}
      </div>
      {!!plays.data?.items.length && (
        <p className="mt-3 text-xs text-slate-600">
          {t("earlierPlays")}{" "}
          {plays.data.items.map((p, i) => (
            <span key={i}>
              {i > 0 && ", "}
              {p.score}/{p.total}
              {p.pending > 0 && <> · {t("playPending", { count: p.pending })}</>} (
              <Time value={p.answeredAt} relative />)
            </span>
          ))}
        </p>
      )}
    </form>
  );
}

/** Her answer beside the model answer, and her own mark of it: what she says is what counts. */
function SelfMark(props: {
  response: string;
  answer: string;
  explanation: string;
  markId: string | null;
  marked: boolean | undefined;
  busy: boolean;
  onMark: (correct: boolean) => void;
}) {
  const t = useTranslations("quiz");
  return (
    <div className="mt-2 rounded-md bg-slate-50 p-2 text-sm" data-testid="self-mark">
      <div className="grid gap-2 sm:grid-cols-2">
        <div>
          <p className="text-xs font-semibold text-slate-600">{t("yourAnswer")}</p>
          <p className="[overflow-wrap:anywhere] whitespace-pre-wrap" data-testid="self-mark-response">
            {props.response}
          </p>
        </div>
        <div>
          <p className="text-xs font-semibold text-slate-600">{t("modelAnswer")}</p>
          <p className="[overflow-wrap:anywhere]" data-testid="self-mark-answer">
            {props.answer}
          </p>
        </div>
      </div>
      {props.explanation && !props.explanation.includes(props.answer) && (
        <p className="mt-1 text-slate-700 [overflow-wrap:anywhere]">{props.explanation}</p>
      )}
      {props.marked === undefined ? (
        props.markId && (
          <div className="mt-2 flex flex-wrap items-center gap-2">
            <span className="text-slate-700">{t("markPrompt")}</span>
            <button
              type="button"
              disabled={props.busy}
              onClick={() => props.onMark(true)}
              className="rounded-md bg-emerald-700 px-3 py-1 text-sm font-medium text-white disabled:opacity-50"
            >
              {t("markRight")}
            </button>
            <button
              type="button"
              disabled={props.busy}
              onClick={() => props.onMark(false)}
              className="rounded-md bg-white px-3 py-1 text-sm font-medium text-rose-800 ring-1 ring-rose-300 disabled:opacity-50"
            >
              {t("markWrong")}
            </button>
          </div>
        )
      ) : (
        <p
          role="status"
          className={`mt-2 font-medium ${props.marked ? "text-emerald-900" : "text-rose-900"}`}
          data-testid="self-mark-result"
        >
          {props.marked ? t("markedRight") : t("markedWrong")}
        </p>
      )}
    </div>
  );
}
