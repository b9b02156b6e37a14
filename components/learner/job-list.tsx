"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { appCodeOf, explainError, isInFlight, targetTitle, type Job, type Targets } from "./labels";
import { JobProgress } from "./progress-bar";
import { StatusBadge } from "./status-badge";
import { TypeIcon } from "./type-icon";
import { Time } from "@/components/time";
import { refreshAfterWrite } from "@/components/trpc/refresh";

type Props = {
  jobs: Job[] | undefined;
  loading: boolean;
  error: string | null;
  targets: Targets | undefined;
  selectedId: string | null;
  onOpen: (id: string) => void;
};

/** The live list shows this many; older analyses load in keyset pages below it. */
export const LIVE_PAGE_SIZE = 20;

/** The learner's recent jobs, newest first, with live state, stage and progress; then the whole history on demand. */
export function JobList({ jobs, loading, error, targets, selectedId, onOpen }: Props) {
  const t = useTranslations("jobList");
  const tCommon = useTranslations("common");
  return (
    <section aria-labelledby="activity-heading" className="rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200">
      <h2 id="activity-heading" className="text-lg font-semibold">
        {t("heading")}
      </h2>
      {loading && <p className="mt-3 text-sm text-slate-600">{tCommon("loading")}</p>}
      {error && (
        <p role="alert" className="mt-3 text-sm text-rose-700">
          {t("loadError", { message: error })}
        </p>
      )}
      {jobs && jobs.length === 0 && <p className="mt-3 text-sm text-slate-600">{t("empty")}</p>}
      <ul
        className="-mx-1 mt-3 max-h-[32rem] divide-y divide-slate-100 overflow-y-auto px-1"
        aria-label={t("listLabel")}
      >
        {jobs?.map((job) => (
          <JobRow key={job.id} job={job} targets={targets} selected={job.id === selectedId} onOpen={onOpen} />
        ))}
      </ul>
      {jobs && jobs.length >= LIVE_PAGE_SIZE && (
        <OlderJobs live={jobs} targets={targets} selectedId={selectedId} onOpen={onOpen} />
      )}
    </section>
  );
}

function JobRow({
  job,
  targets,
  selected,
  onOpen,
}: {
  job: Job;
  targets: Targets | undefined;
  selected: boolean;
  onOpen: (id: string) => void;
}) {
  const t = useTranslations("jobList");
  const tTypes = useTranslations("jobTypes");
  const tTargets = useTranslations("targets");
  const tErrors = useTranslations("errors");
  const tStages = useTranslations("stages");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const cancel = useMutation(
    trpc.jobs.cancel.mutationOptions({ onSettled: () => refreshAfterWrite(queryClient, trpc.jobs.pathFilter()) }),
  );
  const info = { title: tTypes(`${job.jobType}.title`) };
  const cancellable = isInFlight(job.status) && !job.cancelRequested;
  return (
    <li
      className={`py-3 ${selected ? "-mx-2 rounded-lg bg-indigo-50/60 px-2" : ""}`}
      data-testid="job-row"
      data-job-id={job.id}
      data-job-type={job.jobType}
      data-status={job.status}
    >
      <div className="flex items-start justify-between gap-2">
        <button
          type="button"
          onClick={() => onOpen(job.id)}
          className="min-w-0 text-left focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
          aria-current={selected ? "true" : undefined}
        >
          <span className="flex items-center gap-2 truncate font-medium">
            <TypeIcon type={job.jobType} size="h-6 w-6" />
            {info.title}
          </span>
          <span className="mt-0.5 block truncate text-xs text-slate-600">
            {targetTitle(tTargets, targets, { type: job.targetType, id: job.targetId })} ·{" "}
            <Time value={job.createdAt} relative />
          </span>
        </button>
        <div className="flex shrink-0 items-center gap-2">
          <StatusBadge status={job.status} />
          {cancellable && (
            <button
              type="button"
              onClick={() => !cancel.isPending && cancel.mutate({ jobId: job.id })}
              aria-disabled={cancel.isPending || undefined}
              aria-label={t("cancelLabel", { title: info.title })}
              className="rounded-md px-2 py-0.5 text-xs text-rose-700 ring-1 ring-rose-200 hover:bg-rose-50"
            >
              {t("cancel")}
            </button>
          )}
        </div>
      </div>
      {isInFlight(job.status) && <JobProgress job={job} label={tStages("progressLabel", { title: info.title })} />}
      {job.status === "failed" && (
        <p className="mt-1 text-xs text-rose-700">{explainError(tErrors, job.errorCode, job.errorMessage)}</p>
      )}
      {cancel.error && (
        <p role="alert" className="mt-1 text-xs text-rose-700">
          {explainError(tErrors, appCodeOf(cancel.error), cancel.error.message)}
        </p>
      )}
    </li>
  );
}

/**
 * The rest of the history, in keyset pages ("Show older"). The pages start from the top and skip
 * what the live list shows: new jobs arriving meanwhile push rows out of the live list, and
 * starting after its last row would then leave a gap. Finished jobs do not change, so these pages
 * are not live.
 */
function OlderJobs({
  live,
  targets,
  selectedId,
  onOpen,
}: {
  live: Job[];
  targets: Targets | undefined;
  selectedId: string | null;
  onOpen: (id: string) => void;
}) {
  const t = useTranslations("jobList");
  const tCommon = useTranslations("common");
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const older = useInfiniteQuery({
    ...trpc.progress.history.infiniteQueryOptions(
      { limit: LIVE_PAGE_SIZE },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
    enabled: open,
  });
  const shown = new Set(live.map((j) => j.id));
  const all = older.data?.pages.flatMap((p) => p.items) ?? [];
  const items = all.filter((j) => !shown.has(j.id));
  // The first page is mostly what the live list shows: read on until something new appears.
  const { hasNextPage, isFetching, fetchNextPage } = older;
  useEffect(() => {
    if (open && all.length > 0 && items.length === 0 && hasNextPage && !isFetching) void fetchNextPage();
  }, [open, all.length, items.length, hasNextPage, isFetching, fetchNextPage]);
  const more = !open || older.hasNextPage;
  // Settled: nothing in flight and no read-on pending, so what is shown stays until the next click.
  const readingOn = open && all.length > 0 && items.length === 0 && hasNextPage;
  const settled = !isFetching && !readingOn;
  return (
    <div
      className="mt-2"
      data-testid="older-history"
      data-pages={older.data?.pages.length ?? 0}
      data-settled={settled ? "true" : "false"}
    >
      {items.length > 0 && (
        <ul className="-mx-1 divide-y divide-slate-100 px-1" aria-label={t("olderLabel")}>
          {items.map((job) => (
            <JobRow key={job.id} job={job} targets={targets} selected={job.id === selectedId} onOpen={onOpen} />
          ))}
        </ul>
      )}
      {older.error && (
        <p role="alert" className="mt-2 text-xs text-rose-700">
          {t("olderError", { message: older.error.message })}
        </p>
      )}
      {more ? (
        <button
          type="button"
          onClick={() => (open ? void older.fetchNextPage() : setOpen(true))}
          disabled={older.isFetching}
          className="mt-2 w-full rounded-md px-3 py-1.5 text-sm font-medium text-indigo-800 ring-1 ring-indigo-200 hover:bg-indigo-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-600 disabled:opacity-60"
        >
          {older.isFetching ? tCommon("loading") : t("showOlder")}
        </button>
      ) : (
        <p className="mt-2 text-center text-xs text-slate-600" data-testid="history-end">
          {t("end", { count: all.length })}
        </p>
      )}
    </div>
  );
}
