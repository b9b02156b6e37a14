"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Time } from "@/components/time";

const RATINGS = ["again", "hard", "good", "easy"] as const;
// The key that shows the answer, by its ARIA name (aria-keyshortcuts).
const FLIP_KEY = "Space";
type Rating = (typeof RATINGS)[number];
const RATING_STYLE: Record<Rating, string> = {
  again: "bg-rose-700 hover:bg-rose-800",
  hard: "bg-amber-800 hover:bg-amber-900",
  good: "bg-emerald-700 hover:bg-emerald-800",
  easy: "bg-sky-700 hover:bg-sky-800",
};

/**
 * Spaced repetition (server/review): how many cards are due, and the review itself — a card's
 * front, Space (or the button) shows its back, then Again / Hard / Good / Easy by click or by the
 * keys 1–4. The keys work wherever focus is inside the card, and after every step focus returns
 * to the card, so a learner can review with the keyboard alone; each step is announced.
 */
export function ReviewPanel() {
  const t = useTranslations("review");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const queue = useQuery({ ...trpc.review.queue.queryOptions(), refetchInterval: 60_000 });
  const [reviewing, setReviewing] = useState(false);
  const [flipped, setFlipped] = useState(false);
  const [done, setDone] = useState(0);
  const [announce, setAnnounce] = useState("");
  // Cards rated here, by id, at the review count they were rated at: until the queue is read
  // again the card just rated is not shown a second time.
  const [rated, setRated] = useState<Map<string, number>>(new Map());
  const cardRef = useRef<HTMLDivElement>(null);
  const finishedRef = useRef<HTMLParagraphElement>(null);
  const card = reviewing ? queue.data?.cards.find((c) => rated.get(c.id) !== c.reps) : undefined;

  const rate = useMutation(
    trpc.review.rate.mutationOptions({
      onMutate: ({ cardId, reps }) => setRated((m) => new Map(m).set(cardId, reps)),
      onSuccess: (_data, { rating }) => {
        setDone((n) => n + 1);
        setFlipped(false);
        setAnnounce(t("rated", { rating: t(`ratings.${rating}`) }));
      },
      // A card rated meanwhile (another tab) simply moves on: the queue is read again either way.
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.review.queue.queryKey() }),
    }),
  );

  const finished = reviewing && !!queue.data && !card && !rate.isPending && !queue.isFetching;
  useEffect(() => {
    if (reviewing && card) cardRef.current?.focus();
  }, [reviewing, card?.id, flipped]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (finished) finishedRef.current?.focus();
  }, [finished]);

  const flip = () => {
    if (!card || flipped) return;
    setFlipped(true);
    setAnnounce(t("answerShown"));
  };
  const choose = (rating: Rating) => {
    if (!card || !flipped || rate.isPending) return;
    rate.mutate({ cardId: card.id, rating, reps: card.reps });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === " " && !flipped) {
      e.preventDefault();
      flip();
    } else if (/^[1-4]$/.test(e.key)) {
      e.preventDefault();
      choose(RATINGS[Number(e.key) - 1]!);
    }
  };

  const due = queue.data?.due;
  return (
    <section aria-labelledby="review-heading" className="mt-6 rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="review-heading" className="text-lg font-semibold">
          {t("title")}
        </h2>
        {due && (
          <p className="text-sm text-slate-700" data-testid="review-due">
            {t("dueCounts", { total: due.total, flashcards: due.flashcards, questions: due.questions })}
          </p>
        )}
      </div>
      {queue.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {t("loadError", { message: queue.error.message })}
        </p>
      )}
      <p className="sr-only" role="status" aria-live="polite">
        {announce}
      </p>

      {!reviewing && queue.data && (
        <div className="mt-3 flex flex-wrap items-center gap-3">
          {queue.data.due.total > 0 ? (
            <button
              type="button"
              onClick={() => {
                setDone(0);
                setRated(new Map());
                setFlipped(false);
                setReviewing(true);
              }}
              className="rounded-lg bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500"
            >
              {t("start", { total: queue.data.due.total })}
            </button>
          ) : (
            <p className="text-sm text-slate-600">
              {queue.data.cardsInSchedule === 0
                ? t("noCards")
                : t.rich("nothingDue", { time: () => <Time value={queue.data.nextDueAt} relative /> })}
            </p>
          )}
        </div>
      )}

      {reviewing && (
        <div className="mt-3">
          {card ? (
            <div
              ref={cardRef}
              tabIndex={-1}
              role="group"
              aria-roledescription={t("cardRole")}
              aria-label={t("cardLabel", {
                kind: card.kind,
                done: done + 1,
                total: done + (queue.data?.due.total ?? 0),
              })}
              onKeyDown={onKeyDown}
              data-testid="review-card"
              data-card-id={card.id}
              className="rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
            >
              <p className="text-xs uppercase tracking-wide text-slate-600">
                {t("kind", { kind: card.kind })}
                {card.knowledgePointTitle && ` · ${card.knowledgePointTitle}`}
              </p>
              <p className="mt-2 whitespace-pre-line font-medium [overflow-wrap:anywhere]" data-testid="review-front">
                {card.front}
              </p>
              {flipped ? (
                <>
                  <p
                    className="mt-3 whitespace-pre-line border-t border-slate-200 pt-3 text-slate-800 [overflow-wrap:anywhere]"
                    data-testid="review-back"
                  >
                    {card.back}
                  </p>
                  <p className="mt-3 text-xs text-slate-600">{t("rateHint")}</p>
                  <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-4" role="group" aria-label={t("rateGroup")}>
                    {RATINGS.map((r, i) => (
                      <button
                        key={r}
                        type="button"
                        disabled={rate.isPending}
                        onClick={() => choose(r)}
                        aria-keyshortcuts={String(i + 1)}
                        className={`rounded-lg px-3 py-2 text-sm font-medium text-white disabled:opacity-60 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 ${RATING_STYLE[r]}`}
                      >
                        {t(`ratings.${r}`)} <span aria-hidden="true">({i + 1})</span>
                      </button>
                    ))}
                  </div>
                </>
              ) : (
                <button
                  type="button"
                  onClick={flip}
                  aria-keyshortcuts={FLIP_KEY}
                  className="mt-4 rounded-lg bg-slate-800 px-4 py-2 text-sm font-medium text-white hover:bg-slate-900 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500"
                >
                  {t("show")}
                </button>
              )}
              {rate.error && rate.error.data?.code !== "CONFLICT" && (
                <p role="alert" className="mt-2 text-sm text-rose-700">
                  {t("saveError", { message: rate.error.message })}
                </p>
              )}
            </div>
          ) : finished ? (
            <p
              ref={finishedRef}
              tabIndex={-1}
              className="text-sm text-slate-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
              data-testid="review-finished"
            >
              {t("finished", { done })}
            </p>
          ) : (
            <p className="text-sm text-slate-600">{t("loading")}</p>
          )}
          <button
            type="button"
            onClick={() => setReviewing(false)}
            className="mt-3 text-sm text-indigo-700 underline hover:text-indigo-900 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
          >
            {t("stop")}
          </button>
        </div>
      )}
    </section>
  );
}
