"use client";

import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { browserTimeZone } from "./card-actions";

/** The top of the learner page: how many cards are due today and the plan's first step not yet ticked. */
export function TodayBanner() {
  const t = useTranslations("review");
  const trpc = useTRPC();
  const [timeZone] = useState(browserTimeZone);
  const today = useQuery({ ...trpc.review.today.queryOptions({ timeZone }), refetchInterval: 60_000 });
  if (!today.data) return null;
  const { dueCards, firstStep } = today.data;
  return (
    <section
      aria-label={t("todayTitle")}
      className="mt-4 rounded-xl bg-amber-50 p-4 ring-1 ring-amber-200"
      data-testid="today"
    >
      <p className="font-medium text-slate-900">{t("todayDue", { n: dueCards })}</p>
      {firstStep && (
        <p className="mt-1 text-sm text-slate-800">
          {t("firstStep", { title: firstStep.title, minutes: firstStep.estimatedMinutes })}
        </p>
      )}
    </section>
  );
}
