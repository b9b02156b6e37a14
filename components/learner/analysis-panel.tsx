"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useFormatter, useTranslations } from "next-intl";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { appCodeOf, CARD_TYPES, explainError, isInFlight, type Job, type JobType, type Target } from "./labels";
import { JobProgress } from "./progress-bar";
import { TypeIcon } from "./type-icon";
import { QuotaLine, useQuotaSentence } from "./quota";
import { defaultParams, paramsFormOf } from "./results";
import { refreshAfterWrite } from "@/components/trpc/refresh";

type Props = { target: Target; targetLabel: string; jobs: Job[]; consent: boolean; onOpen: (jobId: string) => void };

/** One card per analysis type with its options and a start button; "Run all five" starts every one. */
export function AnalysisPanel({ target, targetLabel, jobs, consent, onOpen }: Props) {
  const t = useTranslations("analyses");
  const tTypes = useTranslations("jobTypes");
  const tErrors = useTranslations("errors");
  const tStages = useTranslations("stages");
  const format = useFormatter();
  const quotaSentence = useQuotaSentence();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [params, setParams] = useState(defaultParams);
  const [notice, setNotice] = useState<{ tone: "ok" | "error"; text: string } | null>(null);

  const trigger = useMutation(
    trpc.analyses.trigger.mutationOptions({
      onSuccess: (data) => {
        const again = data.items.filter((i) => !i.created);
        const started = data.items.length - again.length;
        const parts = [];
        if (started)
          parts.push(
            started === 1
              ? t("startedOne", { title: tTypes(`${data.items.find((i) => i.created)!.jobType}.title`) })
              : t("startedMany", { count: started }),
          );
        if (again.length)
          parts.push(
            t("alreadyRunning", {
              titles: format.list(
                again.map((i) => tTypes(`${i.jobType}.title`)),
                { type: "conjunction" },
              ),
              count: again.length,
            }),
          );
        setNotice({ tone: "ok", text: parts.join(" ") });
        if (data.items.length === 1) onOpen(data.items[0]!.job.id);
        // Show the new jobs at once; the live feed and the refetch bring them up to date.
        queryClient.setQueryData(trpc.jobs.list.queryKey({ pageSize: 20 }), (page) => {
          if (!page) return page;
          const fresh = data.items.map((i) => i.job).filter((j) => !page.items.some((p) => p.id === j.id));
          return {
            ...page,
            items: [...fresh, ...page.items].slice(0, page.pageSize),
            total: page.total + fresh.length,
          };
        });
        void refreshAfterWrite(queryClient, trpc.jobs.list.pathFilter());
        void refreshAfterWrite(queryClient, trpc.quota.get.pathFilter());
      },
      onError: (e) =>
        setNotice({
          tone: "error",
          text: appCodeOf(e) === "QUOTA_EXCEEDED" ? quotaSentence(e) : explainError(tErrors, appCodeOf(e), e.message),
        }),
    }),
  );

  // While a start is in flight the buttons say so (aria-disabled) but stay enabled: a disabled
  // button drops keyboard focus to <body>, losing the user's place on the page.
  const start = (jobTypes: JobType[]) => {
    if (trigger.isPending) return;
    setNotice(null);
    trigger.mutate({ target, jobTypes, params: params as Record<string, Record<string, unknown>> });
  };
  const inFlight = (type: JobType) =>
    jobs.find(
      (j) => j.jobType === type && j.targetType === target.type && j.targetId === target.id && isInFlight(j.status),
    );

  return (
    <section aria-labelledby="analyses-heading" className="mt-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="analyses-heading" className="text-lg font-semibold">
            {t("heading")}
          </h2>
          <p className="text-sm text-slate-600">
            {t.rich("forTarget", {
              target: targetLabel,
              b: (chunks) => <span className="font-medium break-words text-slate-800">{chunks}</span>,
            })}
          </p>
          <QuotaLine />
        </div>
        <button
          type="button"
          onClick={() => start(CARD_TYPES)}
          disabled={!consent}
          aria-disabled={trigger.isPending || undefined}
          className="rounded-lg bg-indigo-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-indigo-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-50"
        >
          {t("runAll")}
        </button>
      </div>
      {!consent && (
        <p className="mt-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
          {t("consentOff")}
        </p>
      )}
      <div role="status" aria-live="polite" className="min-h-0">
        {notice && (
          <p
            className={`mt-3 rounded-lg p-3 text-sm ring-1 ${notice.tone === "ok" ? "bg-indigo-50 text-indigo-900 ring-indigo-200" : "bg-rose-50 text-rose-900 ring-rose-200"}`}
          >
            {notice.text}
          </p>
        )}
      </div>
      <ul className="mt-4 grid gap-3 sm:grid-cols-2 xl:grid-cols-3">
        {CARD_TYPES.map((type) => {
          const info = { title: tTypes(`${type}.title`), blurb: tTypes(`${type}.blurb`) };
          const form = paramsFormOf(type);
          const running = inFlight(type);
          return (
            <li
              key={type}
              className="flex flex-col rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200"
              data-testid={`card-${type}`}
            >
              <h3 className="flex items-center gap-2 font-semibold">
                <TypeIcon type={type} />
                {info.title}
              </h3>
              <p className="mt-1 flex-1 text-sm text-slate-600">{info.blurb}</p>
              <div className="mt-3">
                {form && <form.Fields value={params[type]} onChange={(v) => setParams({ ...params, [type]: v })} />}
              </div>
              {running && (
                <button type="button" onClick={() => onOpen(running.id)} className="mt-2 text-left">
                  <JobProgress job={running} label={tStages("progressLabel", { title: info.title })} />
                </button>
              )}
              <button
                type="button"
                onClick={() => start([type])}
                disabled={!consent}
                aria-disabled={trigger.isPending || undefined}
                className="mt-3 rounded-lg bg-slate-900 px-3 py-2 text-sm font-medium text-white hover:bg-slate-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-slate-900 disabled:cursor-not-allowed disabled:opacity-50"
              >
                {/* The visible words are part of the accessible name (WCAG 2.5.3), which also names the analysis. */}
                {running ? t("runningShow") : t("start")}
                <span className="sr-only">
                  {running ? t("srStartTitle", { title: info.title }) : t("srTitle", { title: info.title })}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
