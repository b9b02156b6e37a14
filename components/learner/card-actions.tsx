"use client";

import { useMutation } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useId, useState } from "react";
import { useTRPC } from "@/components/trpc/client";

export type ManagedCard = { id: string; front: string; back: string; suspended?: boolean; buried?: boolean };
export type CardAction = "edited" | "suspended" | "unsuspended" | "buried" | "unburied" | "reset" | "deleted";

/** The learner's time zone, for "bury until tomorrow" and the daily limits (their own day). */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

const small =
  "rounded-md px-2 py-1 text-xs font-medium text-slate-800 ring-1 ring-slate-300 hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500";

/**
 * What a learner does to one of their review cards (server/review/manage.ts): edit its text,
 * suspend or unsuspend it, bury it until tomorrow, reset it to new, delete it (asked first).
 * Used in Review (the card in hand) and in a deck (its cards in Review). `onDone` hears which
 * action succeeded, so the caller can move on and put focus back.
 */
export function CardActions({ card, onDone }: { card: ManagedCard; onDone: (action: CardAction) => void }) {
  const t = useTranslations("review");
  const trpc = useTRPC();
  const [mode, setMode] = useState<"menu" | "edit" | "delete">("menu");
  const [front, setFront] = useState(card.front);
  const [back, setBack] = useState(card.back);
  const ids = useId();
  const done = (action: CardAction) => () => {
    setMode("menu");
    onDone(action);
  };
  const edit = useMutation(trpc.review.edit.mutationOptions({ onSuccess: done("edited") }));
  const suspend = useMutation(
    trpc.review.suspend.mutationOptions({ onSuccess: (c) => done(c.suspended ? "suspended" : "unsuspended")() }),
  );
  const bury = useMutation(
    trpc.review.bury.mutationOptions({ onSuccess: (c) => done(c.buriedUntil ? "buried" : "unburied")() }),
  );
  const reset = useMutation(trpc.review.reset.mutationOptions({ onSuccess: done("reset") }));
  const remove = useMutation(trpc.review.delete.mutationOptions({ onSuccess: done("deleted") }));
  const error = [edit, suspend, bury, reset, remove].find((m) => m.error)?.error;
  const busy = [edit, suspend, bury, reset, remove].some((m) => m.isPending);

  return (
    <div className="mt-2" data-testid="card-actions">
      {mode === "menu" && (
        <div role="group" aria-label={t("actions")} className="flex flex-wrap gap-2">
          <button
            type="button"
            className={small}
            onClick={() => {
              setFront(card.front);
              setBack(card.back);
              setMode("edit");
            }}
          >
            {t("edit")}
          </button>
          <button
            type="button"
            className={small}
            disabled={busy}
            onClick={() => suspend.mutate({ cardId: card.id, suspended: !card.suspended })}
          >
            {card.suspended ? t("unsuspend") : t("suspend")}
          </button>
          <button
            type="button"
            className={small}
            disabled={busy}
            onClick={() =>
              bury.mutate({
                cardId: card.id,
                buried: !card.buried,
                timeZone: browserTimeZone(),
              })
            }
          >
            {card.buried ? t("unbury") : t("bury")}
          </button>
          <button type="button" className={small} disabled={busy} onClick={() => reset.mutate({ cardId: card.id })}>
            {t("reset")}
          </button>
          <button type="button" className={small} onClick={() => setMode("delete")}>
            {t("delete")}
          </button>
        </div>
      )}
      {mode === "delete" && (
        <div role="group" aria-label={t("confirmDelete")} className="flex flex-wrap items-center gap-2">
          <span className="text-sm text-slate-800">{t("confirmDelete")}</span>
          <button
            type="button"
            autoFocus
            className="rounded-md bg-rose-700 px-2 py-1 text-xs font-medium text-white hover:bg-rose-800 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
            disabled={busy}
            onClick={() => remove.mutate({ cardId: card.id })}
          >
            {t("delete")}
          </button>
          <button type="button" className={small} onClick={() => setMode("menu")}>
            {t("cancel")}
          </button>
        </div>
      )}
      {mode === "edit" && (
        <form
          className="grid gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            edit.mutate({ cardId: card.id, front, back });
          }}
        >
          <label htmlFor={`${ids}-front`} className="text-xs font-medium text-slate-700">
            {t("front")}
          </label>
          <textarea
            id={`${ids}-front`}
            autoFocus
            required
            maxLength={4000}
            value={front}
            onChange={(e) => setFront(e.target.value)}
            className="rounded-md border border-slate-300 p-2 text-sm"
          />
          <label htmlFor={`${ids}-back`} className="text-xs font-medium text-slate-700">
            {t("back")}
          </label>
          <textarea
            id={`${ids}-back`}
            required
            maxLength={4000}
            value={back}
            onChange={(e) => setBack(e.target.value)}
            className="rounded-md border border-slate-300 p-2 text-sm"
          />
          <div className="flex gap-2">
            <button
              type="submit"
              disabled={busy}
              className="rounded-md bg-indigo-600 px-3 py-1 text-xs font-medium text-white hover:bg-indigo-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
            >
              {t("save")}
            </button>
            <button type="button" className={small} onClick={() => setMode("menu")}>
              {t("cancel")}
            </button>
          </div>
        </form>
      )}
      {error && (
        <p role="alert" className="mt-1 text-sm text-rose-700">
          {t("actionError", { message: error.message })}
        </p>
      )}
    </div>
  );
}
