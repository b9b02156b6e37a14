"use client";

import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useEffect, useRef } from "react";
import { useTRPC } from "@/components/trpc/client";
import { appCodeOf, explainError, isInFlight, targetTitle, type Job, type Targets } from "./labels";
import { JobProgress } from "./progress-bar";
import { StatusBadge } from "./status-badge";
import { TypeIcon } from "./type-icon";
import { RESULT_RENDERERS } from "./results";
import { Time } from "@/components/time";

type Props = { jobId: string; live: Job | undefined; targets: Targets | undefined; onOpen: (id: string) => void };

/** One analysis: its state while it runs, its result for people when done, and earlier results of its type. */
export function JobDetail({ jobId, live, targets, onOpen }: Props) {
  const t = useTranslations("jobDetail");
  const tTypes = useTranslations("jobTypes");
  const tTargets = useTranslations("targets");
  const tErrors = useTranslations("errors");
  const tStages = useTranslations("stages");
  const trpc = useTRPC();
  const inFlightNow = live ? isInFlight(live.status) : true;
  const detail = useQuery({
    ...trpc.jobs.get.queryOptions({ jobId }),
    // The live feed refreshes this when the job finishes; the interval covers a closed stream.
    // Also while the server's own copy is still in flight or without its result: the list's live
    // copy can say "succeeded" before this query has read the finished job, and a missed refresh
    // would otherwise leave the page with a "Ready" badge and no result.
    refetchInterval: (q) => {
      const stored = q.state.data;
      const unsettled =
        stored && (isInFlight(stored.job.status) || (stored.job.status === "succeeded" && !stored.result));
      return inFlightNow || unsettled ? 3000 : false;
    },
    retry: (n, e) => appCodeOf(e) !== "JOB_NOT_FOUND" && n < 2,
  });
  // The live feed has just said the job finished and this copy is still from before: read it
  // now. (The feed's own invalidation can be swallowed by a read already in flight that started
  // before the finish — measured: the result then waited for the 3 s interval.)
  // At most a few times per job: the interval above covers a copy that somehow stays behind.
  const liveFinished = !!live && !isInFlight(live.status);
  const copy = detail.data;
  const copyBehind = !!copy && (isInFlight(copy.job.status) || (copy.job.status === "succeeded" && !copy.result));
  const { refetch, isFetching } = detail;
  const catchUps = useRef({ jobId, n: 0 });
  useEffect(() => {
    if (catchUps.current.jobId !== jobId) catchUps.current = { jobId, n: 0 };
    if (!liveFinished || !copyBehind || isFetching || catchUps.current.n >= 3) return;
    catchUps.current.n++;
    void refetch();
  }, [jobId, liveFinished, copyBehind, isFetching, refetch]);

  if (detail.isLoading)
    return (
      <Panel>
        <p className="text-slate-600">{t("loading")}</p>
      </Panel>
    );
  if (detail.error) {
    const notFound = appCodeOf(detail.error) === "JOB_NOT_FOUND" || detail.error.data?.code === "NOT_FOUND";
    return (
      <Panel>
        <p role="alert" className="text-rose-700" data-testid="job-not-found">
          {notFound ? t("notFound") : t("loadError", { message: detail.error.message })}
        </p>
      </Panel>
    );
  }
  const { job: stored, result } = detail.data!;
  // The list's copy moves with the live feed, so it leads while the job runs; once the server's
  // copy is final it wins (the list may lag a moment behind a finish).
  const job = live && isInFlight(stored.status) ? { ...stored, ...pickLive(live) } : stored;
  const info = { title: tTypes(`${job.jobType}.title`) };

  return (
    <Panel>
      <header className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h2 className="flex items-center gap-2 text-xl font-semibold" data-testid="detail-title">
            <TypeIcon type={job.jobType} />
            {info.title}
          </h2>
          <p className="text-sm break-words text-slate-600">
            {t.rich("meta", {
              target: targetTitle(tTargets, targets, { type: job.targetType, id: job.targetId }),
              time: () => <Time value={job.createdAt} relative />,
            })}
            {result?.degraded ? t("warnings") : ""}
          </p>
        </div>
        <StatusBadge status={job.status} />
      </header>
      <div className="mt-4" data-testid="detail-body" data-status={job.status}>
        {isInFlight(job.status) && <JobProgress job={job} label={tStages("progressLabel", { title: info.title })} />}
        {job.status === "failed" && (
          <p className="rounded-lg bg-rose-50 p-3 text-rose-900">
            {explainError(tErrors, job.errorCode, job.errorMessage)}
          </p>
        )}
        {job.status === "cancelled" && <p className="rounded-lg bg-slate-100 p-3 text-slate-700">{t("cancelled")}</p>}
        {job.status === "succeeded" && result?.degraded && (
          <p role="note" className="mb-3 rounded-lg bg-amber-50 p-3 text-amber-900" data-testid="detail-unverified">
            {t("unverified")}
          </p>
        )}
        {job.status === "succeeded" && result && <ResultView job={job} output={result.output} />}
      </div>
      <History jobType={job.jobType} currentId={job.id} onOpen={onOpen} targets={targets} />
    </Panel>
  );
}

function pickLive(live: Job) {
  const { status, stage, progress, cancelRequested, attemptNo } = live;
  return { status, stage, progress, cancelRequested, attemptNo };
}

function ResultView({ job, output }: { job: Pick<Job, "id" | "jobType">; output: unknown }) {
  const { View } = RESULT_RENDERERS[job.jobType];
  // Keyed by job: a result with its own state (answers, marks) starts afresh for another job.
  return <View key={job.id} jobId={job.id} output={output} />;
}

function History({
  jobType,
  currentId,
  onOpen,
  targets,
}: {
  jobType: Job["jobType"];
  currentId: string;
  onOpen: (id: string) => void;
  targets: Targets | undefined;
}) {
  const t = useTranslations("jobDetail");
  const tTypes = useTranslations("jobTypes");
  const tTargets = useTranslations("targets");
  const tCommon = useTranslations("common");
  const trpc = useTRPC();
  const history = useQuery(trpc.jobs.list.queryOptions({ jobType: [jobType], status: ["succeeded"], pageSize: 10 }));
  const others = history.data?.items.filter((j) => j.id !== currentId) ?? [];
  return (
    <section aria-labelledby="history-heading" className="mt-6 border-t border-slate-100 pt-4">
      <h3 id="history-heading" className="text-sm font-semibold text-slate-700">
        {t("historyHeading", { title: tTypes(`${jobType}.title`) })}
      </h3>
      {history.isLoading && <p className="mt-1 text-sm text-slate-600">{tCommon("loading")}</p>}
      {history.data && others.length === 0 && <p className="mt-1 text-sm text-slate-600">{t("historyNone")}</p>}
      <ul className="mt-1 flex flex-wrap gap-2" data-testid="history">
        {others.map((j) => (
          <li key={j.id}>
            <button
              type="button"
              onClick={() => onOpen(j.id)}
              className="rounded-full bg-slate-100 px-3 py-1 text-xs hover:bg-slate-200"
            >
              <Time value={j.createdAt} relative /> ·{" "}
              {targetTitle(tTargets, targets, { type: j.targetType, id: j.targetId })}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Panel({ children }: { children: React.ReactNode }) {
  const t = useTranslations("jobDetail");
  return (
    <section className="rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200 sm:p-6" aria-label={t("panelLabel")}>
      {children}
    </section>
  );
}
