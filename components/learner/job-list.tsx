"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { appCodeOf, explainError, isInFlight, targetTitle, TYPE_INFO, when, type Job, type Targets } from "./labels";
import { JobProgress, StatusBadge } from "./progress-bar";
import { TypeIcon } from "./type-icon";

type Props = { jobs: Job[] | undefined; loading: boolean; error: string | null; targets: Targets | undefined; selectedId: string | null; onOpen: (id: string) => void };

/** The learner's recent jobs, newest first, with live state, stage and progress. */
export function JobList({ jobs, loading, error, targets, selectedId, onOpen }: Props) {
  return (
    <section aria-labelledby="activity-heading" className="rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200">
      <h2 id="activity-heading" className="text-lg font-semibold">
        Your analyses
      </h2>
      {loading && <p className="mt-3 text-sm text-slate-600">Loading…</p>}
      {error && (
        <p role="alert" className="mt-3 text-sm text-rose-700">
          Could not load your analyses: {error}
        </p>
      )}
      {jobs && jobs.length === 0 && <p className="mt-3 text-sm text-slate-600">Nothing yet. Pick a target and start an analysis — it will show up here.</p>}
      <ul className="-mx-1 mt-3 max-h-[32rem] divide-y divide-slate-100 overflow-y-auto px-1" aria-label="analyses">
        {jobs?.map((job) => (
          <JobRow key={job.id} job={job} targets={targets} selected={job.id === selectedId} onOpen={onOpen} />
        ))}
      </ul>
    </section>
  );
}

function JobRow({ job, targets, selected, onOpen }: { job: Job; targets: Targets | undefined; selected: boolean; onOpen: (id: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const cancel = useMutation(
    trpc.jobs.cancel.mutationOptions({ onSettled: () => queryClient.invalidateQueries(trpc.jobs.pathFilter()) }),
  );
  const info = TYPE_INFO[job.jobType];
  const cancellable = isInFlight(job.status) && !job.cancelRequested;
  return (
    <li className={`py-3 ${selected ? "-mx-2 rounded-lg bg-indigo-50/60 px-2" : ""}`} data-testid="job-row" data-job-id={job.id} data-job-type={job.jobType} data-status={job.status}>
      <div className="flex items-start justify-between gap-2">
        <button type="button" onClick={() => onOpen(job.id)} className="min-w-0 text-left focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500" aria-current={selected ? "true" : undefined}>
          <span className="flex items-center gap-2 truncate font-medium">
            <TypeIcon type={job.jobType} size="h-6 w-6" />
            {info.title}
          </span>
          <span className="mt-0.5 block truncate text-xs text-slate-600">
            {targetTitle(targets, { type: job.targetType, id: job.targetId })} · {when(job.createdAt)}
          </span>
        </button>
        <div className="flex shrink-0 items-center gap-2">
          <StatusBadge status={job.status} />
          {cancellable && (
            <button
              type="button"
              onClick={() => !cancel.isPending && cancel.mutate({ jobId: job.id })}
              aria-disabled={cancel.isPending || undefined}
              aria-label={`Cancel ${info.title}`}
              className="rounded-md px-2 py-0.5 text-xs text-rose-700 ring-1 ring-rose-200 hover:bg-rose-50"
            >
              Cancel
            </button>
          )}
        </div>
      </div>
      {isInFlight(job.status) && <JobProgress job={job} label={`${info.title} progress`} />}
      {job.status === "failed" && <p className="mt-1 text-xs text-rose-700">{explainError(job.errorCode, job.errorMessage)}</p>}
      {cancel.error && (
        <p role="alert" className="mt-1 text-xs text-rose-700">
          {explainError(appCodeOf(cancel.error), cancel.error.message)}
        </p>
      )}
    </li>
  );
}
