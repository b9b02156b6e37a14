"use client";

import { useState } from "react";
import type { NextActions } from "@/server/jobs/schemas";

const KIND = { review: "Review", practice: "Practice", learn_new: "Learn", rest: "Rest" } as const;

/** The plan as a checklist with time estimates; ticks are for the learner's own tracking on this page. */
export function NextActionsResult({ output }: { output: NextActions }) {
  const actions = [...output.actions].sort((a, b) => a.priority - b.priority);
  const [done, setDone] = useState<Set<number>>(new Set());
  const total = actions.reduce((n, a) => n + a.estimatedMinutes, 0);
  const left = actions.reduce((n, a, i) => n + (done.has(i) ? 0 : a.estimatedMinutes), 0);
  return (
    <div>
      <p className="text-sm text-slate-600">
        {actions.length} steps, about {total} minutes in all{done.size ? ` — ${left} minutes left` : ""}.
      </p>
      <ul className="mt-3 space-y-2">
        {actions.map((a, i) => (
          <li key={`${a.title}-${i}`} className="rounded-lg p-3 ring-1 ring-slate-200" data-testid="next-action">
            <label className="flex cursor-pointer items-start gap-3">
              <input
                type="checkbox"
                checked={done.has(i)}
                onChange={() => setDone((d) => (d.has(i) ? new Set([...d].filter((x) => x !== i)) : new Set([...d, i])))}
                className="mt-1 h-4 w-4 accent-indigo-600"
              />
              <span className="min-w-0 flex-1">
                <span className={`block font-medium ${done.has(i) ? "text-slate-600 line-through" : ""}`}>{a.title}</span>
                <span className="block text-sm text-slate-600">{a.reason}</span>
              </span>
              <span className="shrink-0 text-right text-xs">
                <span className="block rounded-full bg-indigo-50 px-2 py-0.5 font-medium text-indigo-800">{KIND[a.actionType]}</span>
                <span className="mt-1 block tabular-nums text-slate-600">~{a.estimatedMinutes} min</span>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </div>
  );
}
