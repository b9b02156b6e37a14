"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useRef, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { Flashcards } from "@/server/jobs/schemas";
import { useClickedTicks } from "./clicked-ticks";
import { DeckInReview } from "./deck-review";

/** True at most once a minute per deck (called from a click, never while rendering). */
function studyDue(last: { current: number }): boolean {
  const t = Date.now();
  if (t - last.current < 60_000) return false;
  last.current = t;
  return true;
}

/** Cards to flip (click or Enter/Space) and mark as known; marks are saved per deck. */
export function FlashcardDeck({ jobId, output }: { jobId: string; output: Flashcards }) {
  const t = useTranslations("flashcards");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [flipped, setFlipped] = useState<Set<number>>(new Set());
  const marks = useQuery(trpc.flashcards.marks.queryOptions({ jobId }));
  const key = trpc.flashcards.marks.queryKey({ jobId });
  const clicked = useClickedTicks();
  // Optimistic: the tick shows at once; the server's answer (or a failure) settles it.
  const setMark = useMutation(
    trpc.flashcards.setMark.mutationOptions({
      onMutate: ({ cardIndex, known: mark }) => {
        const before = queryClient.getQueryData(key);
        queryClient.setQueryData(
          key,
          (old) =>
            old && {
              ...old,
              known: mark
                ? [...new Set([...old.known, cardIndex])].sort((a, b) => a - b)
                : old.known.filter((i) => i !== cardIndex),
            },
        );
        return { before };
      },
      onError: (_e, _v, ctx) => queryClient.setQueryData(key, ctx?.before),
      onSuccess: (data) => queryClient.setQueryData(key, data),
      // Every save, not only the last one's: a held click never outlives its own answer.
      onSettled: (_data, _error, { cardIndex }) => clicked.release(cardIndex),
    }),
  );
  // Studying the deck is study time: a flip tells the server at most once a minute (it opens or
  // stretches the deck's study session, which the next analysis reads).
  const study = useMutation(trpc.flashcards.study.mutationOptions());
  const lastStudy = useRef(0);
  const known = clicked.apply(marks.data?.known ?? []);
  const mark = (cardIndex: number, on: boolean) => {
    clicked.hold(cardIndex, on);
    setMark.mutate({ jobId, cardIndex, known: on });
  };
  const toggle = (i: number) => {
    if (studyDue(lastStudy)) study.mutate({ jobId });
    setFlipped((f) => (f.has(i) ? new Set([...f].filter((x) => x !== i)) : new Set([...f, i])));
  };

  return (
    <div>
      <DeckInReview jobId={jobId} />
      <p className="text-sm text-slate-600" aria-live="polite" data-testid="known-count">
        {t("known", { known: known.size, total: output.flashcards.length })}
      </p>
      <ul className="mt-3 grid gap-3 sm:grid-cols-2">
        {output.flashcards.map((card, i) => {
          const isFlipped = flipped.has(i);
          const isKnown = known.has(i);
          return (
            <li
              key={i}
              className={`flex flex-col rounded-xl p-3 ring-1 ${isKnown ? "bg-emerald-50 ring-emerald-200" : "bg-white ring-slate-200"}`}
              data-testid="flashcard"
            >
              <button
                type="button"
                onClick={() => toggle(i)}
                aria-pressed={isFlipped}
                className="min-h-24 flex-1 rounded-lg p-2 text-left focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
              >
                {/* The card's name is its visible text (WCAG 2.5.3) plus which card and what pressing does. */}
                <span className="sr-only">{t("cardNumber", { number: i + 1 })}</span>
                <span className="block text-xs uppercase tracking-wide text-slate-600">
                  {isFlipped ? t("answer") : t("question")}
                </span>
                <span
                  className={`mt-1 block whitespace-pre-line [overflow-wrap:anywhere] ${isFlipped ? "text-slate-700" : "font-medium"}`}
                >
                  {isFlipped ? card.back : card.front}
                </span>
                {!isFlipped && <span className="sr-only">{t("flipHint")}</span>}
              </button>
              <div className="mt-2 flex items-center justify-between gap-2">
                <span className="truncate text-xs text-slate-600">{card.tags.join(" · ")}</span>
                <label className="inline-flex shrink-0 items-center gap-1 text-sm">
                  <input
                    type="checkbox"
                    checked={isKnown}
                    disabled={marks.isLoading}
                    onChange={(e) => mark(i, e.target.checked)}
                    className="accent-emerald-600"
                  />
                  {t("iKnow")}
                </label>
              </div>
            </li>
          );
        })}
      </ul>
      {setMark.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {t("saveError", { message: setMark.error.message })}
        </p>
      )}
    </div>
  );
}
