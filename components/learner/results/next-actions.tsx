"use client";

import { useTranslations } from "next-intl";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import type { NextActions } from "@/server/jobs/schemas";
import { appCodeOf, explainError } from "../labels";
import { useClickedTicks } from "./clicked-ticks";

/**
 * The plan as a checklist with time estimates. Ticks are saved on the server (per step, by its
 * index in the stored plan), so they survive a reload and show on every device.
 */
export function NextActionsResult({ jobId, output }: { jobId: string; output: NextActions }) {
  const t = useTranslations("nextActions");
  const tErrors = useTranslations("errors");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ticksKey = trpc.progress.ticks.queryKey({ jobId });
  const ticks = useQuery(trpc.progress.ticks.queryOptions({ jobId }));
  const clicked = useClickedTicks();
  const setTick = useMutation(
    trpc.progress.setTick.mutationOptions({
      // Optimistic: the box follows the click at once; the server's answer then settles it.
      onMutate: async ({ actionIndex, done: on }) => {
        await queryClient.cancelQueries({ queryKey: ticksKey });
        const before = queryClient.getQueryData(ticksKey);
        const cur = new Set(before?.done ?? []);
        if (on) cur.add(actionIndex);
        else cur.delete(actionIndex);
        queryClient.setQueryData(ticksKey, { jobId, done: [...cur].sort((a, b) => a - b) });
        return { before };
      },
      onError: (_e, _v, ctx) => ctx?.before && queryClient.setQueryData(ticksKey, ctx.before),
      onSuccess: (data) => queryClient.setQueryData(ticksKey, data),
      // Every save, not only the last one's: a held click never outlives its own answer.
      onSettled: (_data, _error, { actionIndex }) => clicked.release(actionIndex),
    }),
  );
  const done = clicked.apply(ticks.data?.done ?? []);
  const tick = (actionIndex: number, on: boolean) => {
    clicked.hold(actionIndex, on);
    setTick.mutate({ jobId, actionIndex, done: on });
  };
  // Shown by priority, ticked by the index each step has in the stored plan.
  const actions = output.actions
    .map((a, index) => ({ ...a, index }))
    .sort((a, b) => a.priority - b.priority || a.index - b.index);
  const total = actions.reduce((n, a) => n + a.estimatedMinutes, 0);
  const left = actions.reduce((n, a) => n + (done.has(a.index) ? 0 : a.estimatedMinutes), 0);
  return (
    <div>
      <p className="text-sm text-slate-600" data-testid="plan-summary">
        {done.size
          ? t("summaryDone", { steps: actions.length, total, done: done.size, left })
          : t("summary", { steps: actions.length, total })}
      </p>
      {setTick.error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {t("tickError", { message: explainError(tErrors, appCodeOf(setTick.error), setTick.error.message) })}
        </p>
      )}
      <ul className="mt-3 space-y-2">
        {actions.map((a) => (
          <li
            key={a.index}
            className="rounded-lg p-3 ring-1 ring-slate-200"
            data-testid="next-action"
            data-done={done.has(a.index)}
          >
            <label className="flex cursor-pointer items-start gap-3">
              <input
                type="checkbox"
                checked={done.has(a.index)}
                disabled={!ticks.data}
                onChange={(e) => tick(a.index, e.target.checked)}
                className="mt-1 h-4 w-4 accent-indigo-600"
              />
              <span className="min-w-0 flex-1 [overflow-wrap:anywhere]">
                <span className={`block font-medium ${done.has(a.index) ? "text-slate-600 line-through" : ""}`}>
                  {a.title}
                </span>
                <span className="block text-sm text-slate-600">{a.reason}</span>
              </span>
              <span className="shrink-0 text-right text-xs">
                <span className="block rounded-full bg-indigo-50 px-2 py-0.5 font-medium text-indigo-800">
                  {t("kind", { kind: a.actionType })}
                </span>
                <span className="mt-1 block tabular-nums text-slate-600">
                  {t("minutes", { minutes: a.estimatedMinutes })}
                </span>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </div>
  );
}
