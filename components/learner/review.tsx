"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useLocale, useTranslations } from "next-intl";
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Time } from "@/components/time";
import { browserTimeZone, CardActions, type CardAction } from "./card-actions";
import { formatInterval } from "./interval";
import { PendingDecks, ReviewLimits, ReviewScopePicker, type ReviewScope } from "./review-setup";
import { OPEN_REVIEW } from "./today";
import { useRefreshFacts } from "./learner-facts";

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
 * Spaced repetition (server/review): decks waiting for the learner's answer, what is due today
 * (new, learning, to review, within the daily limits and the chosen scope), and the review itself —
 * a card's front, Space (or the button) shows its back, then Again / Hard / Good / Easy (each with
 * the interval it gives) by click or by the keys 1–4, with progress ("3 / 11"). The keys work
 * wherever focus is inside the card, and after every step focus returns to the card, so a learner
 * can review with the keyboard alone; each step is announced with its place in the sitting. The
 * card in hand can be edited, suspended, buried, reset or deleted.
 */
export function ReviewPanel() {
  const t = useTranslations("review");
  const locale = useLocale();
  const trpc = useTRPC();
  const [scope, setScope] = useState<ReviewScope>({});
  const [timeZone] = useState(browserTimeZone);
  // Read again when the facts change (useRefreshFacts: a rating, a deck, a quiz, a finished job), not on a timer.
  const queue = useQuery(trpc.review.queue.queryOptions({ ...scope, timeZone }));
  // idle → reviewing (Start) → finished (nothing left due in this sitting) → reviewing (Start again).
  const [phase, setPhase] = useState<"idle" | "reviewing" | "finished">("idle");
  // Cards rated in this sitting, and cards set aside in it (suspended, buried, reset, deleted).
  const [done, setDone] = useState(0);
  const [setAside, setSetAside] = useState(0);
  const [announce, setAnnounce] = useState("");
  // Cards rated here, by id, at the review count they were rated at. A card comes back in the same
  // sitting only when the queue holds it again with a higher count: it fell due again (a card rated
  // Again, once its learning step is over), never straight after its rating.
  const [rated, setRated] = useState<Map<string, number>>(new Map());
  // The card (id and review count) whose answer is shown: the next card always starts on its front.
  const [shown, setShown] = useState<string | null>(null);
  const cardRef = useRef<HTMLDivElement>(null);
  const finishedRef = useRef<HTMLParagraphElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const reviewing = phase === "reviewing";
  const isRated = (c: { id: string; reps: number }) => rated.get(c.id) === c.reps;
  const card = reviewing ? queue.data?.cards.find((c) => !isRated(c)) : undefined;
  // Left in this sitting: today's count, less the cards in hand already rated (the queue is read again after each).
  const left = queue.data ? Math.max(0, queue.data.today.total - queue.data.cards.filter(isRated).length) : 0;
  // The page's top line (review.today) counts the same cards: it is read again with the queue,
  // and a read begun before a rating was saved never has the last word.
  const refresh = useRefreshFacts();
  const cardKey = card ? `${card.id}:${card.reps}` : null;
  const flipped = cardKey !== null && shown === cardKey;

  const rate = useMutation(
    trpc.review.rate.mutationOptions({
      onMutate: ({ cardId, reps }) => {
        setRated((m) => new Map(m).set(cardId, reps));
        setShown(null);
      },
      // A card rated meanwhile (another tab) simply moves on: the queue is read again either way.
      onSettled: refresh,
    }),
  );

  // The sitting ends when nothing is left to rate: at once when the cards in hand were all that was
  // due (no wait for the save), else when the fresh queue holds nothing more. A card that falls due
  // later brings back the start button instead of taking focus from the message.
  const heldAll = queue.data && queue.data.today.total <= queue.data.cards.length;
  if (reviewing && queue.data && !card && (heldAll || (!rate.isPending && !queue.isFetching))) setPhase("finished");
  // Focus moves in the same commit as the element it leaves, so it is never left on the page.
  useLayoutEffect(() => {
    if (cardKey) cardRef.current?.focus();
  }, [cardKey, flipped]);
  useLayoutEffect(() => {
    if (phase === "finished") finishedRef.current?.focus();
  }, [phase]);

  // The top line's link: the Review over all cards (what the line counts), focus on its heading,
  // or on the card in hand during a sitting.
  useEffect(() => {
    const open = () => {
      if (reviewing) return cardRef.current?.focus();
      setScope({});
      headingRef.current?.focus();
    };
    window.addEventListener(OPEN_REVIEW, open);
    return () => window.removeEventListener(OPEN_REVIEW, open);
  }, [reviewing]);

  const flip = () => {
    if (!cardKey || flipped) return;
    setShown(cardKey);
    setAnnounce(t("answerShown"));
  };

  // The card in hand's place in the sitting: "3 / 11" (cards handled so far plus those left).
  const handled = done + setAside;
  const choose = (rating: Rating) => {
    if (!card || !flipped) return;
    setDone((n) => n + 1);
    const name = t(`ratings.${rating}`);
    // Announced at once with the next card's place, not when the save returns.
    setAnnounce(
      left > 1 ? t("ratedNext", { rating: name, n: handled + 2, total: handled + left }) : t("rated", { rating: name }),
    );
    rate.mutate({ cardId: card.id, rating, reps: card.reps });
  };
  // An action on the card in hand: a card set aside (suspended, buried, deleted, reset) leaves the
  // sitting like a rated one; an edited card stays, with its new text. Focus returns to the card.
  const acted = (action: CardAction) => {
    if (card && action !== "edited") {
      setRated((m) => new Map(m).set(card.id, card.reps));
      setSetAside((n) => n + 1);
    }
    setAnnounce(t(`done.${action}`));
    void refresh();
    requestAnimationFrame(() => cardRef.current?.focus());
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
    <section
      id="review"
      aria-labelledby="review-heading"
      className="scroll-mt-4 mt-6 rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="review-heading" ref={headingRef} tabIndex={-1} className="text-lg font-semibold focus:outline-none">
          {t("title")}
        </h2>
        {queue.data && (
          <p
            className="text-sm text-slate-700"
            data-testid="review-due"
            data-now={queue.data.today.total}
            data-later={queue.data.laterToday}
          >
            {t("dayCounts", { now: queue.data.today.total, later: queue.data.laterToday })}
          </p>
        )}
      </div>
      {queue.data && (
        <p className="mt-1 text-sm text-slate-700" data-testid="review-today">
          {t("todayCounts", queue.data.today)}
        </p>
      )}
      {due && queue.data && due.total > queue.data.today.total && (
        <p className="mt-1 text-sm text-slate-700" data-testid="review-held-back">
          {t("heldBack", { n: due.total - queue.data.today.total })}
        </p>
      )}
      {queue.data && queue.data.setAside.suspended + queue.data.setAside.buried > 0 && (
        <p className="mt-1 text-sm text-slate-600" data-testid="review-set-aside">
          {t("setAside", queue.data.setAside)}
        </p>
      )}
      {queue.data && <PendingDecks decks={queue.data.pendingDecks} onAdded={refresh} />}
      {!reviewing && <ReviewScopePicker value={scope} onChange={setScope} />}
      {queue.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {t("loadError", { message: queue.error.message })}
        </p>
      )}
      <p className="sr-only" role="status" aria-live="polite">
        {announce}
      </p>

      {phase === "finished" && (
        <p
          ref={finishedRef}
          tabIndex={-1}
          className="mt-3 text-sm text-slate-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
          data-testid="review-finished"
        >
          {t("finished", { done })}
        </p>
      )}
      {/* What is left is read after the ratings are saved: never a count from before them. */}
      {!reviewing && queue.data && !rate.isPending && !queue.isFetching && (
        <div className="mt-3 flex flex-wrap items-center gap-3">
          {queue.data.today.total > 0 ? (
            <button
              type="button"
              onClick={() => {
                setDone(0);
                setSetAside(0);
                // `rated` is kept: a card rated in an earlier sitting comes back only at a higher review count.
                setShown(null);
                setPhase("reviewing");
              }}
              className="rounded-lg bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500"
            >
              {t("start", { total: queue.data.today.total })}
            </button>
          ) : (
            <p className="text-sm text-slate-600">
              {queue.data.cardsInSchedule === 0
                ? t("noCards")
                : queue.data.due.total > 0
                  ? t("limitReached", {
                      newDone: queue.data.limits.newDoneToday,
                      reviewsDone: queue.data.limits.reviewsDoneToday,
                    })
                  : t.rich("nothingDue", { time: () => <Time value={queue.data.nextDueAt} relative /> })}
            </p>
          )}
        </div>
      )}

      {reviewing && (
        <div className="mt-3">
          {/* One element for every card and the wait between them, so focus never drops to the page. */}
          <div
            ref={cardRef}
            tabIndex={-1}
            role="group"
            aria-roledescription={t("cardRole")}
            aria-label={
              card ? t("cardLabel", { kind: card.kind, done: handled + 1, total: handled + left }) : t("loading")
            }
            aria-busy={!card}
            onKeyDown={onKeyDown}
            data-testid="review-card"
            data-card-id={card?.id}
            className="rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
          >
            {card ? (
              <>
                <div className="flex items-baseline justify-between gap-2">
                  <p className="text-xs uppercase tracking-wide text-slate-600">
                    {t("kind", { kind: card.kind })}
                    {card.knowledgePointTitle && ` · ${card.knowledgePointTitle}`}
                  </p>
                  <p className="text-sm tabular-nums text-slate-700" data-testid="review-progress">
                    {t("progress", { done: handled + 1, total: handled + left })}
                  </p>
                </div>
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
                    <div
                      className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-4"
                      role="group"
                      aria-label={t("rateGroup")}
                    >
                      {RATINGS.map((r, i) => (
                        <button
                          key={r}
                          type="button"
                          onClick={() => choose(r)}
                          aria-keyshortcuts={String(i + 1)}
                          className={`rounded-lg px-3 py-2 text-sm font-medium text-white focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 ${RATING_STYLE[r]}`}
                        >
                          {t(`ratings.${r}`)} <span aria-hidden="true">({i + 1})</span>
                          <span className="block text-xs font-normal" data-testid={`interval-${r}`}>
                            {formatInterval(card.intervals[r], locale, t("lessThanMinute"))}
                          </span>
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
              </>
            ) : (
              <p className="text-sm text-slate-600">{t("loading")}</p>
            )}
          </div>
          {card && <CardActions key={`${card.id}:${card.reps}`} card={card} onDone={acted} />}
          <button
            type="button"
            onClick={() => {
              // Focus goes to the section's heading before the button it is on goes away.
              headingRef.current?.focus();
              setPhase("idle");
            }}
            className="mt-3 text-sm text-indigo-700 underline hover:text-indigo-900 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
          >
            {t("stop")}
          </button>
        </div>
      )}
      {!reviewing && queue.data && <ReviewLimits limits={queue.data.limits} onSaved={refresh} />}
    </section>
  );
}
