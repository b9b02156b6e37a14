"use client";

import { useQuery } from "@tanstack/react-query";
import { useLocale, useTranslations } from "next-intl";
import { useTRPC } from "@/components/trpc/client";
import { JOB_TYPES, type JobType } from "./labels";

type QuotaDetails = { metric?: string; period?: string; allowed?: number; resetsAt?: string };

/** A reset time in the learner's language and clock: the time today, else the weekday too. */
export function formatClock(iso: string, locale: string) {
  const at = new Date(iso);
  const sameDay = at.toDateString() === new Date().toDateString();
  return at.toLocaleString(
    locale,
    sameDay ? { hour: "2-digit", minute: "2-digit" } : { weekday: "long", hour: "2-digit", minute: "2-digit" },
  );
}

/** The 429 QUOTA_EXCEEDED answer in plain words, with the reset time in the learner's own clock. */
export function useQuotaSentence(): (error: unknown) => string {
  const t = useTranslations("quota");
  const tTypes = useTranslations("jobTypes");
  const locale = useLocale();
  return (error) => {
    const d = ((error as { data?: { details?: QuotaDetails } } | null)?.data?.details ?? {}) as QuotaDetails;
    if (d.metric === "tokens")
      return t("tokensUsed", { time: d.resetsAt ? formatClock(d.resetsAt, locale) : t("midnightUtc") });
    const metric = d.metric?.startsWith("jobs:") ? d.metric.slice("jobs:".length) : null;
    const type = metric && (JOB_TYPES as string[]).includes(metric) ? (metric as JobType) : null;
    const period = d.period === "day" ? "day" : "hour";
    const limit =
      d.allowed === undefined
        ? t("limitUnknown")
        : type
          ? t("limitOfType", { allowed: d.allowed, type: tTypes(`${type}.title`), period })
          : t("limitAny", { allowed: d.allowed, period });
    const when = d.resetsAt ? t("moreAt", { time: formatClock(d.resetsAt, locale) }) : t("tryLater");
    return `${limit} ${when}`;
  };
}

/** "You can start 18 more analyses this hour and 88 more today." — from the learner's own limits. */
export function QuotaLine() {
  const t = useTranslations("quota");
  const locale = useLocale();
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
        {t("budgetUsed", { time: formatClock(budget.resetsAt, locale) })}
      </p>
    );
  const left = Math.min(hour.remaining, day.remaining);
  const text =
    left === 0
      ? t("allUsed", { time: formatClock((hour.remaining === 0 ? hour : day).resetsAt, locale) })
      : t("left", { hour: hour.remaining, day: day.remaining });
  return (
    <p className="mt-1 text-xs text-slate-600" data-testid="quota-line">
      {text}
    </p>
  );
}
