"use client";

import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { browserTimeZone } from "./card-actions";

/** The window event the today line's link sends: the Review panel opens over all cards. */
export const OPEN_REVIEW = "ajr:open-review";

/**
 * The top of the learner page, from the learner model: the cards Review offers now and those that
 * fall due later in her day, both labelled ("2 cards now · 6 cards later today"), as Review states
 * them; and the plan's first step not yet ticked, by priority, flagged when the plan was stored
 * degraded. Read again whenever the facts change (useRefreshFacts), not on a timer.
 */
export function TodayBanner() {
  const t = useTranslations("review");
  const trpc = useTRPC();
  const [timeZone] = useState(browserTimeZone);
  const today = useQuery(trpc.review.today.queryOptions({ timeZone }));
  if (!today.data) return null;
  const { now, laterToday, firstStep } = today.data;
  const dueCards = now + laterToday;
  return (
    <section
      aria-label={t("todayTitle")}
      className="mt-4 rounded-xl bg-amber-50 p-4 ring-1 ring-amber-200"
      data-testid="today"
    >
      <p className="font-medium text-slate-900">
        <span data-testid="today-due" data-now={now} data-later={laterToday}>
          {dueCards === 0 ? t("todayNone") : t("todayDue", { counts: t("dayCounts", { now, later: laterToday }) })}
        </span>
        {now > 0 && (
          <>
            {" "}
            <a
              href="#review"
              onClick={(e) => {
                // Focus goes to the Review's heading (the browser's own jump to #review would drop it).
                e.preventDefault();
                window.history.pushState(null, "", "#review");
                window.dispatchEvent(new Event(OPEN_REVIEW));
              }}
              className="text-indigo-700 underline hover:text-indigo-900 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500"
              data-testid="today-open-review"
            >
              {t("todayOpen")}
            </a>
          </>
        )}
      </p>
      {firstStep && (
        <p
          className="mt-1 text-sm text-slate-800"
          data-testid="today-first-step"
          data-degraded={firstStep.degraded || undefined}
        >
          {firstStep.degraded && (
            <span className="mr-1 rounded bg-amber-200 px-1 text-xs font-medium text-amber-900">{t("unverified")}</span>
          )}
          {t(firstStep.degraded ? "firstStepDegraded" : "firstStep", {
            title: firstStep.title,
            minutes: firstStep.estimatedMinutes,
          })}
        </p>
      )}
    </section>
  );
}
