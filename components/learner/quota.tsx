"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { TYPE_INFO, type JobType } from "./labels";

type QuotaDetails = { metric?: string; period?: string; allowed?: number; resetsAt?: string };

const clock = (iso: string) => {
  const at = new Date(iso);
  const sameDay = at.toDateString() === new Date().toDateString();
  return at.toLocaleString(
    undefined,
    sameDay ? { hour: "2-digit", minute: "2-digit" } : { weekday: "long", hour: "2-digit", minute: "2-digit" },
  );
};

const what = (metric?: string) => {
  const type = metric?.startsWith("jobs:") ? (metric.slice("jobs:".length) as JobType) : null;
  return type && Object.hasOwn(TYPE_INFO, type) ? `“${TYPE_INFO[type].title}” analyses` : "analyses";
};

/** The 429 QUOTA_EXCEEDED answer in plain words, with the reset time in the learner's own clock. */
export function quotaSentence(error: unknown): string {
  const d = ((error as { data?: { details?: QuotaDetails } } | null)?.data?.details ?? {}) as QuotaDetails;
  if (d.metric === "tokens")
    return `You have used today's AI budget; it resets at ${d.resetsAt ? clock(d.resetsAt) : "midnight UTC"}.`;
  const limit =
    d.allowed !== undefined
      ? `your limit of ${d.allowed} ${what(d.metric)} ${d.period === "day" ? "a day" : "an hour"}`
      : "your limit";
  const when = d.resetsAt ? ` You can start more at ${clock(d.resetsAt)}.` : " Try again later.";
  return `You have reached ${limit}.${when}`;
}

/** "You can start 18 more analyses this hour and 88 more today." — from the learner's own limits. */
export function QuotaLine() {
  const trpc = useTRPC();
  const quota = useQuery(trpc.quota.get.queryOptions());
  const items = quota.data?.items;
  if (!items) return null;
  const hour = items.find((i) => i.metric === "jobs" && i.period === "hour");
  const day = items.find((i) => i.metric === "jobs" && i.period === "day");
  if (!hour || !day) return null;
  const budget = items.find((i) => i.metric === "tokens");
  if (budget && budget.remaining === 0)
    return (
      <p className="mt-1 text-xs text-slate-600" data-testid="quota-line">
        You have used today&apos;s AI budget on the platform key; it resets at {clock(budget.resetsAt)}. Analyses on
        your own DeepSeek key still run.
      </p>
    );
  const left = Math.min(hour.remaining, day.remaining);
  const text =
    left === 0
      ? `You have used all your analyses for now. You can start more at ${clock((hour.remaining === 0 ? hour : day).resetsAt)}.`
      : `You can start ${hour.remaining} more ${hour.remaining === 1 ? "analysis" : "analyses"} this hour and ${day.remaining} more today.`;
  return (
    <p className="mt-1 text-xs text-slate-600" data-testid="quota-line">
      {text}
    </p>
  );
}
