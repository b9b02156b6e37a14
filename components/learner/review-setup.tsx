"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useId, useState } from "react";
import { useTRPC } from "@/components/trpc/client";

export type ReviewScope = { materialId?: string; knowledgePointId?: string };

const button =
  "rounded-lg px-3 py-1.5 text-sm font-medium focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500";

type DeckAnswer = { decision: "added" | "dismissed"; added: number; updated: number; skipped: number };

/** What adding a deck did, in one sentence. */
export function useDeckAnswerText() {
  const t = useTranslations("review");
  return (a: DeckAnswer) =>
    a.decision === "added"
      ? t("deckAdded", { added: a.added, updated: a.updated, skipped: a.skipped })
      : t("deckDismissed");
}

/** Finished decks the learner has not answered: each asks "Add it to Review?" (Add / Not now). */
export function PendingDecks({
  decks,
  onAdded,
}: {
  decks: { jobId: string; cards: number; title: string | null }[];
  onAdded: () => unknown;
}) {
  const t = useTranslations("review");
  const trpc = useTRPC();
  const answerText = useDeckAnswerText();
  const [said, setSaid] = useState("");
  const add = useMutation(
    trpc.review.addDeck.mutationOptions({
      onSuccess: async (a) => {
        setSaid(answerText(a));
        await onAdded();
      },
    }),
  );
  const dismiss = useMutation(
    trpc.review.dismissDeck.mutationOptions({
      onSuccess: async (a) => {
        setSaid(answerText(a));
        await onAdded();
      },
    }),
  );
  const error = add.error ?? dismiss.error;
  return (
    <div className="mt-2">
      <p role="status" className="text-sm text-emerald-800" data-testid="deck-answer">
        {said}
      </p>
      {decks.map((d) => (
        <div
          key={d.jobId}
          className="mt-2 flex flex-wrap items-center gap-2 rounded-lg bg-indigo-50 p-3 ring-1 ring-indigo-200"
          data-testid="pending-deck"
        >
          <p className="text-sm text-slate-800">{t("deckReady", { cards: d.cards, title: d.title ?? "none" })}</p>
          <button
            type="button"
            disabled={add.isPending}
            onClick={() => add.mutate({ jobId: d.jobId })}
            className={`${button} bg-indigo-600 text-white hover:bg-indigo-700`}
          >
            {t("addDeck")}
          </button>
          <button
            type="button"
            disabled={dismiss.isPending}
            onClick={() => dismiss.mutate({ jobId: d.jobId })}
            className={`${button} text-slate-800 ring-1 ring-slate-300 hover:bg-white`}
          >
            {t("notNow")}
          </button>
        </div>
      ))}
      {error && (
        <p role="alert" className="mt-1 text-sm text-rose-700">
          {t("actionError", { message: error.message })}
        </p>
      )}
    </div>
  );
}

/** Which cards a review covers: all, one material, or one knowledge point (a native select). */
export function ReviewScopePicker({ value, onChange }: { value: ReviewScope; onChange: (s: ReviewScope) => void }) {
  const t = useTranslations("review");
  const trpc = useTRPC();
  const targets = useQuery(trpc.targets.list.queryOptions());
  const id = useId();
  if (!targets.data) return null;
  const encoded = value.knowledgePointId
    ? `kp:${value.knowledgePointId}`
    : value.materialId
      ? `m:${value.materialId}`
      : "all";
  return (
    <div className="mt-3">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {t("scope")}
      </label>
      <select
        id={id}
        value={encoded}
        onChange={(e) => {
          const [kind, ...rest] = e.target.value.split(":");
          const ref = rest.join(":");
          onChange(kind === "kp" ? { knowledgePointId: ref } : kind === "m" ? { materialId: ref } : {});
        }}
        data-testid="review-scope"
        className="mt-1 w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-base shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200 sm:w-auto"
      >
        <option value="all">{t("scopeAll")}</option>
        {targets.data.materials.map((m) => (
          <optgroup key={m.id} label={m.title}>
            <option value={`m:${m.id}`}>{t("scopeMaterial", { title: m.title })}</option>
            {m.knowledgePoints.map((k) => (
              <option key={k.id} value={`kp:${k.id}`}>
                {k.title}
              </option>
            ))}
          </optgroup>
        ))}
        {targets.data.looseKnowledgePoints.map((k) => (
          <option key={k.id} value={`kp:${k.id}`}>
            {k.title}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Review's daily limits (new cards, reviews), saved per learner. */
export function ReviewLimits({
  limits,
  onSaved,
}: {
  limits: { newPerDay: number; reviewsPerDay: number };
  onSaved: () => unknown;
}) {
  const t = useTranslations("review");
  const trpc = useTRPC();
  const id = useId();
  const [newPerDay, setNew] = useState(String(limits.newPerDay));
  const [reviewsPerDay, setReviews] = useState(String(limits.reviewsPerDay));
  const save = useMutation(trpc.review.setLimits.mutationOptions({ onSuccess: () => onSaved() }));
  const field = "mt-1 w-24 rounded-md border border-slate-300 px-2 py-1 text-base";
  return (
    <details className="mt-4 text-sm">
      <summary className="cursor-pointer text-slate-700">{t("limits")}</summary>
      <form
        className="mt-2 flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ newPerDay: Number(newPerDay), reviewsPerDay: Number(reviewsPerDay) });
        }}
      >
        <div>
          <label htmlFor={`${id}-new`} className="block text-slate-700">
            {t("newPerDay")}
          </label>
          <input
            id={`${id}-new`}
            type="number"
            min={0}
            max={9999}
            required
            value={newPerDay}
            onChange={(e) => setNew(e.target.value)}
            className={field}
          />
        </div>
        <div>
          <label htmlFor={`${id}-reviews`} className="block text-slate-700">
            {t("reviewsPerDay")}
          </label>
          <input
            id={`${id}-reviews`}
            type="number"
            min={0}
            max={9999}
            required
            value={reviewsPerDay}
            onChange={(e) => setReviews(e.target.value)}
            className={field}
          />
        </div>
        <button
          type="submit"
          disabled={save.isPending}
          className={`${button} bg-slate-800 text-white hover:bg-slate-900`}
        >
          {t("saveLimits")}
        </button>
      </form>
      <p role="status" className="mt-1 text-slate-700">
        {save.data ? t("limitsSaved", save.data) : ""}
      </p>
      {save.error && (
        <p role="alert" className="mt-1 text-rose-700">
          {t("actionError", { message: save.error.message })}
        </p>
      )}
    </details>
  );
}
