"use client";

import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { AiSettings } from "./ai-settings";
import { AnalysisPanel } from "./analysis-panel";
import { JobDetail } from "./job-detail";
import { JobList, LIVE_PAGE_SIZE } from "./job-list";
import { MasteryChart } from "./mastery-chart";
import { FirstRun } from "./first-run";
import { MyMaterials } from "./my-materials";
import { ReviewPanel } from "./review";
import { TodayBanner } from "./today";
import { targetTitle, type Target } from "./labels";
import { TargetPicker } from "./target-picker";
import { listRefetchMs, useJobFeed } from "./use-job-feed";

/** The learner page: pick a target, start analyses, watch them live, use the results. */
export function LearnerPage({ userId, initialJobId }: { userId: string; initialJobId: string | null }) {
  const t = useTranslations("learnerPage");
  const tTargets = useTranslations("targets");
  const trpc = useTRPC();
  const live = useJobFeed();
  const [target, setTarget] = useState<Target>({ type: "user", id: userId });
  const [selectedId, setSelectedId] = useState<string | null>(initialJobId);
  const [adding, setAdding] = useState(false);
  const detailRef = useRef<HTMLDivElement>(null);

  const targets = useQuery(trpc.targets.list.queryOptions());
  const consent = useQuery(trpc.consent.get.queryOptions());
  const jobs = useQuery({
    ...trpc.jobs.list.queryOptions({ pageSize: LIVE_PAGE_SIZE }),
    refetchInterval: (q) => listRefetchMs(live, q.state.data?.items),
  });

  // A learner with nothing yet (no material, no topic, no job) sees what to do first, not empty panels.
  const hasMaterial = (targets.data?.materials.length ?? 0) > 0;
  const hasPoints =
    !!targets.data &&
    (targets.data.looseKnowledgePoints.length > 0 || targets.data.materials.some((m) => m.knowledgePoints.length > 0));
  const noJobs = jobs.data?.total === 0;
  const firstRun = !!targets.data && noJobs;
  const nothingYet = !!targets.data && !hasMaterial && !hasPoints && noJobs;

  const open = (jobId: string) => {
    setSelectedId(jobId);
    window.history.replaceState(null, "", `/jobs/${jobId}`);
  };
  useEffect(() => {
    if (selectedId) detailRef.current?.scrollIntoView({ behavior: "smooth", block: "nearest" });
  }, [selectedId]);

  return (
    <div className="mx-auto grid max-w-6xl gap-6 px-4 py-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="min-w-0">
        <section
          aria-labelledby="intro-heading"
          className="rounded-xl bg-gradient-to-br from-indigo-600 to-violet-600 p-5 text-white shadow-sm"
        >
          <h1 id="intro-heading" className="text-2xl font-semibold">
            {t("introTitle")}
          </h1>
          <ol className="mt-2 grid gap-1 text-sm text-indigo-50 sm:grid-cols-3">
            {(["step1", "step2", "step3"] as const).map((step) => (
              <li key={step}>{t.rich(step, { b: (chunks) => <span className="font-semibold">{chunks}</span> })}</li>
            ))}
          </ol>
        </section>

        {!nothingYet && <TodayBanner />}
        {firstRun && (
          <FirstRun
            hasMaterial={hasMaterial}
            hasPoints={hasPoints}
            consent={consent.data?.granted ?? false}
            onAdd={() => setAdding(true)}
          />
        )}
        <MyMaterials adding={adding} onAddingChange={setAdding} />
        {!nothingYet && <ReviewPanel />}

        <div className="mt-6">
          {targets.isLoading && <p className="text-sm text-slate-600">{t("loadingMaterials")}</p>}
          {targets.error && (
            <p role="alert" className="text-sm text-rose-700">
              {t("materialsError", { message: targets.error.message })}
            </p>
          )}
          {targets.data && !nothingYet && <TargetPicker targets={targets.data} value={target} onChange={setTarget} />}
        </div>

        {selectedId && (
          <div ref={detailRef} className="mt-6 scroll-mt-4">
            <JobDetail
              jobId={selectedId}
              live={jobs.data?.items.find((j) => j.id === selectedId)}
              targets={targets.data}
              onOpen={open}
            />
          </div>
        )}

        {!nothingYet && (
          <AnalysisPanel
            target={target}
            targetLabel={targetTitle(tTargets, targets.data, target)}
            jobs={jobs.data?.items ?? []}
            consent={consent.data?.granted ?? true}
            onOpen={open}
          />
        )}
        {!noJobs && <MasteryChart />}
      </div>

      <aside className="min-w-0 space-y-6">
        <p className="flex items-center gap-2 text-xs text-slate-600" data-testid="live-indicator">
          <span
            className={`inline-block h-2 w-2 rounded-full ${live ? "bg-emerald-500" : "bg-amber-400"}`}
            aria-hidden="true"
          />
          {live ? t("liveOn") : t("liveOff")}
        </p>
        {!nothingYet && (
          <JobList
            jobs={jobs.data?.items}
            loading={jobs.isLoading}
            error={jobs.error?.message ?? null}
            targets={targets.data}
            selectedId={selectedId}
            onOpen={open}
          />
        )}
        <AiSettings />
      </aside>
    </div>
  );
}
