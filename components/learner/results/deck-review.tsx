"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Time } from "@/components/time";
import { CardActions, type CardAction } from "../card-actions";
import { useDeckAnswerText } from "../review-setup";
import { useRefreshFacts } from "../learner-facts";

/**
 * A deck and Review: until the learner answers, "Add these cards to Review?"; once added, what
 * that did and the deck's cards in Review, each with its actions (edit, suspend, bury, reset,
 * delete). A deck answered "not now" can still be added here.
 */
export function DeckInReview({ jobId }: { jobId: string }) {
  const t = useTranslations("review");
  const trpc = useTRPC();
  const deck = useQuery(trpc.review.deck.queryOptions({ jobId }));
  const answerText = useDeckAnswerText();
  const [said, setSaid] = useState("");
  // The deck, Review and the top line: the deck's cards joined (or left) the schedule.
  const refresh = useRefreshFacts();
  const add = useMutation(
    trpc.review.addDeck.mutationOptions({
      onSuccess: async (a) => {
        setSaid(answerText(a));
        await refresh();
      },
    }),
  );
  const acted = (action: CardAction) => {
    setSaid(t(`done.${action}`));
    void refresh();
  };
  if (!deck.data) return null;
  const { decision, cards } = deck.data;
  return (
    <section
      aria-label={t("title")}
      className="mb-3 rounded-lg bg-slate-50 p-3 ring-1 ring-slate-200"
      data-testid="deck-review"
    >
      <p role="status" className="text-sm text-slate-800">
        {said || (decision ? answerText(decision) : "")}
      </p>
      {decision?.decision !== "added" && (
        <div className="mt-1 flex flex-wrap items-center gap-2">
          <span className="text-sm text-slate-800">{t("deckAsk")}</span>
          <button
            type="button"
            disabled={add.isPending}
            onClick={() => add.mutate({ jobId })}
            className="rounded-lg bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500"
          >
            {t("addDeck")}
          </button>
        </div>
      )}
      {cards.length > 0 && (
        <details className="mt-2">
          <summary className="cursor-pointer text-sm text-slate-700">{t("manage")}</summary>
          <ul className="mt-2 grid gap-2">
            {cards.map((c) => (
              <li key={c.id} className="rounded-md bg-white p-2 ring-1 ring-slate-200" data-testid="deck-review-card">
                <p className="text-sm font-medium [overflow-wrap:anywhere]">{c.front}</p>
                <p className="text-sm whitespace-pre-line text-slate-700 [overflow-wrap:anywhere]">{c.back}</p>
                {c.suspended && <p className="text-xs text-amber-800">{t("suspended")}</p>}
                {c.buried && (
                  <p className="text-xs text-amber-800">
                    {t.rich("buried", { time: () => <Time value={c.buriedUntil} /> })}
                  </p>
                )}
                <CardActions card={c} onDone={acted} />
              </li>
            ))}
          </ul>
        </details>
      )}
      {add.error && (
        <p role="alert" className="mt-1 text-sm text-rose-700">
          {t("actionError", { message: add.error.message })}
        </p>
      )}
    </section>
  );
}
